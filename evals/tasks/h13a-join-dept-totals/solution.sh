#!/usr/bin/env bash
awk -F'\t' 'NR == FNR { if (FNR > 1) name[$1] = $2; next } FNR > 1 { t[name[$3]] += $4 } END { for (d in t) print d "," t[d] }' departments.tsv employees.tsv > dept_totals.csv
sort -t, -k2,2nr dept_totals.csv | head -n 1 | cut -d, -f1
