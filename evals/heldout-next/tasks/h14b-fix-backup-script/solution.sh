#!/usr/bin/env bash
cat > backup.sh <<'SH'
#!/bin/bash
# Copy every .txt note into backup/.
set -e
SRC="my notes"
DEST=backup

mkdir -p "$DEST"
for f in "$SRC"/*.txt; do
  cp -- "$f" "$DEST/"
done
echo "backed up $(ls "$SRC"/*.txt | wc -l) notes to $DEST/"
SH
./backup.sh
