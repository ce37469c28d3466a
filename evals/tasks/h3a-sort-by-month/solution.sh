#!/usr/bin/env bash
cd scans
for f in scan_*.pdf; do
  [ -f "$f" ] || continue
  if [[ "$f" =~ ^scan_([0-9]{4})([0-9]{2})[0-9]{2}_.*\.pdf$ ]]; then
    dir="${BASH_REMATCH[1]}-${BASH_REMATCH[2]}"
    mkdir -p "$dir"
    mv -- "$f" "$dir/"
  fi
done
