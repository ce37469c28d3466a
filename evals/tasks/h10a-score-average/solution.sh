#!/usr/bin/env bash
awk -F, 'NR > 1 { s += $3; n++ } END { print s / n }' scores.csv > average.txt
