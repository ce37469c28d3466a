#!/bin/bash
awk -F, 'NR > 1 { s += $4; n++ } END { print s / n }' members.csv > avg_age.txt
