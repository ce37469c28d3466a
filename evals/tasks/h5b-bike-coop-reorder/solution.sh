#!/bin/bash
./stock_report.sh
awk -F'|' 'NR > 1 && $2 + 0 <= $3 + 0 { print $1 }' stock.txt > reorder.txt
