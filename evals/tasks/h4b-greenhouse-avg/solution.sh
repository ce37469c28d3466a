#!/usr/bin/env bash
awk -F'\t' 'NR > 1 && $1 == "bay-1" { s += $3; n++ } END { print s / n }' readings.tsv > bay1_avg.txt
# Exact match on the sensor column (skipping the header), then sum / count with awk.
