#!/usr/bin/env bash
awk -F, 'NR == FNR { if (FNR > 1) country[$1] = $3; next } FNR > 1 && country[$2] == "Canada" { s += $4 } END { printf "%.2f\n", s }' customers.csv orders.csv
