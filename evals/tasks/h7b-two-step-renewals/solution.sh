#!/bin/bash
awk -F, 'NR > 1 && $5 < "2025-04-01" { print $3 }' memberships.csv | sort -u > renewals.txt
wc -l < renewals.txt
