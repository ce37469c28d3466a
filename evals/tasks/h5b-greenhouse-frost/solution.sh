#!/bin/bash
./decode.py raw.log
awk -F, '$2 == "greenhouse" && $3 < 0 { n++ } END { print n + 0 }' readings.csv > frost.txt
awk -F, '$2 == "greenhouse" { if (min == "" || $3 + 0 < min + 0) min = $3 } END { print min }' readings.csv > coldest.txt
