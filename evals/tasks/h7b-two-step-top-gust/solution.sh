#!/bin/bash
top=$(tail -n +2 gusts_feb.csv | sort -t, -k3,3gr | head -n 1 | cut -d, -f1)
{ head -n 1 gusts_feb.csv; awk -F, -v s="$top" 'NR > 1 && $1 == s' gusts_feb.csv; } > top_station.csv
echo "$top"
