#!/bin/bash
cd scans
for f in *; do
  [ -f "$f" ] || continue
  if [[ "$f" =~ ([0-9]{4})-([0-9]{2})-[0-9]{2} ]]; then
    d="${BASH_REMATCH[1]}/${BASH_REMATCH[2]}"
    mkdir -p "$d" && mv -- "$f" "$d/"
  fi
done
