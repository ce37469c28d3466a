#!/usr/bin/env bash
awk -F, 'NR > 1 && $2 == "North" { s += $4 } END { printf "%.2f\n", s }' sales.csv > north_total.txt
