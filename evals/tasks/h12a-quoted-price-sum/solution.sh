#!/usr/bin/env bash
python3 -c '
import csv
with open("products.csv", newline="") as f:
    total = sum(float(r["price"]) for r in csv.DictReader(f))
print("%.2f" % total)
' > price_total.txt
