#!/usr/bin/env bash
awk -F, 'NR > 1 && $2 == "West" { s += $5 } END { printf "The West region sold %.2f in total.\n", s }' sales.csv
