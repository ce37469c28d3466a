#!/usr/bin/env bash
cat > backup.sh <<'SH'
#!/bin/bash
# Copy every .txt file from notes/ into backup/ and say how many were copied.
set -e
src=notes
dest=backup
mkdir -p "$dest"
count=0
for f in "$src"/*.txt; do
  [ -e "$f" ] || continue
  cp -- "$f" "$dest/"
  count=$((count + 1))
done
if [ $count -eq 0 ]; then
  echo "nothing to back up"
  exit 1
fi
echo "copied $count files to $dest"
SH
./backup.sh
