#!/bin/bash
awk -F'\t' -v OFS=',' 'NR==FNR { if (FNR > 1) t[$1] = $2; next } FNR == 1 { print "name", "team"; next } { print $2, t[$3] }' teams.tsv staff.tsv > staff_teams.csv
