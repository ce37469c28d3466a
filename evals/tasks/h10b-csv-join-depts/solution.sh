#!/bin/bash
awk -F, 'NR==FNR { if (FNR > 1) d[$1] = $2; next } FNR == 1 { print "name,department"; next } { print $2 "," d[$3] }' \
  departments.csv employees.csv > staff_departments.csv
