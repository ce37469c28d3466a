#!/usr/bin/env bash
awk -F, 'NR > 1 { s += $2; n++ } END { print s / n }' scores.csv > average.txt
