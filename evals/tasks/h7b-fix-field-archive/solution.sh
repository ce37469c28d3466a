#!/bin/bash
cat > archive_notes.sh <<'SH'
#!/bin/bash
# Copy this season's field notes into archive/, one folder per site (the site is on the first line of each note).
set -e
SRC="field notes"
DEST=archive
for f in "$SRC"/*.txt; do
  site=$(head -n 1 "$f" | sed 's/^Site: //')
  mkdir -p "$DEST/$site"
  cp "$f" "$DEST/$site/"
done
echo "archived $(find "$DEST" -name '*.txt' | wc -l) notes"
SH
./archive_notes.sh
