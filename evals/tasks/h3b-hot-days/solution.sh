#!/bin/bash
awk -F, 'NR > 1 && $3 + 0 > 30 { n++ } END { print n + 0 }' weather.csv
