#!/usr/bin/env bash
awk -F, 'NR > 1 { s += $2; n++ } END { printf "%.2f\n", s / n }' scores.csv > average.txt
