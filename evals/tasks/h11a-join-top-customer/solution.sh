#!/bin/bash
id=$(awk -F, 'NR>1{t[$2]+=$4} END{for(k in t) print t[k], k}' orders.csv | sort -rn | head -1 | awk '{print $2}')
awk -F, -v id="$id" '$1==id{print $2}' customers.csv
