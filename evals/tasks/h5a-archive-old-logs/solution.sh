#!/usr/bin/env bash
mkdir -p logs/archive
for f in logs/app-*.log; do
  d="${f#logs/app-}"; d="${d%.log}"
  if [[ "$d" < "2024-03-01" ]]; then mv "$f" logs/archive/; fi
done
