#!/usr/bin/env bash
python3 -c 'import csv; print(sum(int(r["qty"]) for r in csv.DictReader(open("stock.csv"))))' > total_qty.txt
