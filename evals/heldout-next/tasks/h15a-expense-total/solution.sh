#!/usr/bin/env bash
awk -F, 'NR > 1 { s += $3 } END { printf "%.2f\n", s }' expenses.csv > total.txt
