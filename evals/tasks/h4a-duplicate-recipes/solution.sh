#!/usr/bin/env bash
mkdir -p recipes/duplicates
declare -A seen
while IFS= read -r -d '' f; do
  h="$(md5sum < "$f" | cut -d' ' -f1)"
  if [ -n "${seen[$h]:-}" ]; then mv -- "$f" recipes/duplicates/; else seen[$h]="$f"; fi
done < <(find recipes -maxdepth 1 -type f -print0 | LC_ALL=C sort -z)
# Walks the files in name order, hashes each with md5sum, and moves any file whose hash was already seen.
