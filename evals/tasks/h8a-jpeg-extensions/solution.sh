#!/usr/bin/env bash
find photos -type f -iregex '.*\.jpe?g' -print0 | while IFS= read -r -d '' f; do
  new="${f%.*}.jpg"
  [ "$f" = "$new" ] || mv -n -- "$f" "$new"
done
