#!/usr/bin/env bash
for f in photos/*.jpeg; do
  mv -- "$f" "${f%.jpeg}.jpg"
done
