#!/usr/bin/env bash
awk -F'\t' 'NR > 1 && $2 == "Sales"' staff.tsv | wc -l
