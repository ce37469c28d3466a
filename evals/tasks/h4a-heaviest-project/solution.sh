#!/usr/bin/env bash
for d in projects/*/; do
  printf '%s %s\n' "$(find "$d" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')" "$(basename "$d")"
done | sort -rn | head -n 1 | cut -d' ' -f2
# Sums the byte sizes of regular files (find -printf %s) per top-level folder and prints the largest.
