#!/usr/bin/env bash
cd inbox
for f in *\ *; do
  [ -f "$f" ] || continue
  mv -- "$f" "${f// /_}"
done
