#!/usr/bin/env bash
awk -F'\t' '$2 == "eng" { s += $3; n++ } END { printf "%.0f\n", s / n }' salaries.tsv
