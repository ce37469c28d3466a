#!/usr/bin/env bash
for f in scans/*' '*; do
  [ -e "$f" ] || continue
  d="$(dirname "$f")"; b="$(basename "$f")"
  mv -- "$f" "$d/${b// /_}"
done
# Loops over names containing a space (quoted, so spaces are safe) and renames with ${name// /_}, one underscore per space.
