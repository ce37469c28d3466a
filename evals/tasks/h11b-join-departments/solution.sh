#!/usr/bin/env bash
awk -F, 'NR == FNR { if (FNR > 1) d[$1] = $2; next } FNR == 1 { print "name,department"; next } { print $2 "," d[$3] }' \
  departments.csv employees.csv > staff.csv
tail -n +2 staff.csv | cut -d, -f2 | sort | uniq -c | sort -rn | head -1 | awk '{print $2}'
