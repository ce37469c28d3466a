#!/usr/bin/env bash
awk -F, 'FNR == 1 { next }
  FILENAME == "customers.csv" { name[$1] = $2; next }
  { sum[$2] += $4 }
  END { for (id in sum) printf "%s,%.2f\n", name[id], sum[id] }' customers.csv orders.csv > customer_totals.csv
sort -t, -k2,2 -rn customer_totals.csv | head -n 1 | cut -d, -f1
