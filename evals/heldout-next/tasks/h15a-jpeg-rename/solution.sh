#!/usr/bin/env bash
cd pics || exit 1
for f in *.jpeg; do
  mv -- "$f" "${f%.jpeg}.jpg"
done
