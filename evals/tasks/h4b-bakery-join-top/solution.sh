#!/usr/bin/env bash
awk -F, 'NR == FNR { if (FNR > 1) sum[$2] += $3; next }
         FNR == 1 { print "name,total"; next }
         { printf "%s,%.2f\n", $2, sum[$1] + 0 }' orders.csv customers.csv > totals.csv
tail -n +2 totals.csv | sort -t, -k2,2nr | head -n 1 | cut -d, -f1 > top.txt
# awk sums orders per customer id then walks customers.csv in order (0 when absent); top.txt is the max total.
