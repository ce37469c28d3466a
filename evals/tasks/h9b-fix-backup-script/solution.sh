#!/bin/bash
cat > backup.sh <<'SH'
#!/bin/bash
# Copy every .txt file from "My Documents" into backup/.
set -e
SRC="My Documents"
DEST=backup

mkdir -p "$DEST"
for f in "$SRC"/*.txt; do
    cp -- "$f" "$DEST/"
done
echo "backed up $(ls "$DEST" | wc -l) files to $DEST/"
SH
