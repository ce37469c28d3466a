#!/usr/bin/env bash
awk -F, 'NR == FNR { c[$1] = $3; next } FNR == 1 { print $0 ",country"; next } { print $0 "," c[$2] }' customers.csv orders.csv > orders_with_country.csv
awk -F, 'NR > 1 { t[$4] += $3 } END { for (k in t) print t[k], k }' orders_with_country.csv | sort -rn | head -1 | awk '{print $2}'
