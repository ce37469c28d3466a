#!/usr/bin/env bash
unzip -q -o reports.zip -d reports
for f in reports/sales-*.csv; do
  awk -F, -v f="$f" 'NR > 1 { s += $3 } END { print s, f }' "$f"
done | sort -rn | head -n 1 | sed -E 's/.*sales-([0-9]{4})-([0-9]{2}).*/\1-\2/' |
  xargs -I{} date -d {}-01 '+%B %Y'
