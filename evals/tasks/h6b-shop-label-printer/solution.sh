#!/bin/bash
./print_labels
sed -i 's/^paper = A4$/paper = L7163/' printer.conf
./print_labels
grep '^Order' packing_list.txt | grep -v CANCELLED | cut -d: -f2 | tr ',' '\n' |
  awk '{ sub(/x$/, "", $1); q[$2] += $1 } END { print "sku,qty"; for (s in q) print s "," q[s] }' > labels.csv
./print_labels
mkdir -p spool
./print_labels
