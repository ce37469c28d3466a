#!/bin/bash
awk -F, 'NR == FNR { if (FNR > 1) city[$1] = $3; next }
         FNR > 1 { total[city[$2]] += $3 }
         END { print "city,total"; for (c in total) printf "%s,%.2f\n", c, total[c] }' customers.csv orders.csv > city_totals.csv
tail -n +2 city_totals.csv | sort -t, -k2 -rn | head -n 1 | cut -d, -f1
