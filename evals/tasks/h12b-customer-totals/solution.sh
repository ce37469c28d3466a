#!/usr/bin/env bash
awk -F'\t' 'NR == FNR { if (FNR > 1) { split($0, a, ","); name[a[1]] = a[2] } next }
  FNR > 1 { s[$2] += $3 }
  END { for (k in s) printf "%s,%.2f\n", name[k], s[k] }' customers.csv orders.tsv | sort -t, -k2,2 -rn > totals.csv
