#!/usr/bin/env bash
set -e
sed -i -e 's/for f in \$(ls data\/\*\.txt); do/for f in data\/*.txt; do/' \
       -e 's/wc -l < \$f/wc -l < "$f"/' \
       -e 's/basename \$f/basename "$f"/' count_lines.sh
./count_lines.sh
