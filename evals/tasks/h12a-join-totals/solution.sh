#!/usr/bin/env bash
awk -F, 'NR==FNR { if (FNR>1) name[$1]=$2; next } FNR>1 { tot[$2]+=$4 } END { for (c in tot) printf "%s,%.2f\n", name[c], tot[c] }' customers.csv orders.csv > totals.csv
