#!/usr/bin/env bash
awk -F, 'NR == FNR { if (FNR > 1) name[$1] = $2; next }
         FNR > 1 { total[name[$2]] += $4 }
         END { print "name,total"; for (n in total) printf "%s,%.2f\n", n, total[n] }' customers.csv orders.csv > spend.csv
tail -n +2 spend.csv | sort -t, -k2 -rn | head -n 1 | cut -d, -f1
