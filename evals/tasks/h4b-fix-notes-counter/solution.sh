#!/usr/bin/env bash
cat > count.sh <<'SH'
#!/usr/bin/env bash
# Writes "<note file>: <number of lines>" for every notes/*.txt to counts.txt.
set -e
: > counts.txt
for f in notes/*.txt; do
  n=$(wc -l < "$f")
  echo "$(basename "$f"): $n" >> counts.txt
done
echo "wrote counts.txt"
SH
./count.sh
# Iterates over the glob instead of $(ls ...) and quotes "$f", then runs the script.
