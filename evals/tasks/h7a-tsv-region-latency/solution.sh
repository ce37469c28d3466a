#!/usr/bin/env bash
awk -F'\t' 'NR > 1 && $2 == "eu-west" { s += $4; n++ } END { print s / n }' probe-latency.tsv
