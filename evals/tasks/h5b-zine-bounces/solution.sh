#!/bin/bash
sed -n 's/.*to=<\([^>]*\)> status=5.*/\1/p' bounces.log | sort -u > /tmp/perm.$$
awk -F, 'NR == FNR { bad[$1] = 1; next } FNR > 1 && ($1 in bad) { print $1 }' /tmp/perm.$$ list.csv > removed.txt
awk -F, 'NR == FNR { bad[$1] = 1; next } !(FNR > 1 && ($1 in bad))' /tmp/perm.$$ list.csv > list.new && mv list.new list.csv
rm -f /tmp/perm.$$
