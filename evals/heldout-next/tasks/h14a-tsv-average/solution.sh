#!/bin/bash
awk -F'\t' 'NR > 1 { s += $3; n++ } END { print s / n }' scores.tsv
