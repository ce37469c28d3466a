#!/usr/bin/env bash
n=$(awk -F, 'NR > 1 && $2 >= "2024-01-01" && $2 < "2024-04-01"' orders.csv | wc -l)
echo "$n orders were placed in Q1 2024."
