#!/bin/bash
cat > backup.sh <<'SH'
#!/bin/bash
# Copy everything in "My Documents" into backup/ and say how many files were copied.
set -e

SRC="My Documents"
DEST=backup

mkdir -p "$DEST"
count=0
for f in "$SRC"/*; do
  cp "$f" "$DEST/"
  count=$((count + 1))
done
echo "backed up $count files to $DEST/"
SH
chmod +x backup.sh
./backup.sh
