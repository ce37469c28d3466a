#!/usr/bin/env bash
awk -F, 'NR == FNR { shipped[$1] = 1; next } FNR > 1 && !($1 in shipped) { print $1 }' shipped.txt orders.csv > pending.txt
# Loads shipped IDs into an awk array, then prints the first column of each data row of orders.csv that is not in it.
