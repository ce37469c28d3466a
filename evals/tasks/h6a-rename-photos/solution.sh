#!/usr/bin/env bash
set -e
find photos -type f \( -iname '*.jpg' -o -iname '*.jpeg' \) -print0 | while IFS= read -r -d '' f; do
  dir="$(dirname "$f")"; base="$(basename "$f")"
  stem="${base%.*}"; new="${stem// /_}.jpg"
  [ "$base" = "$new" ] || mv "$f" "$dir/$new"
done
