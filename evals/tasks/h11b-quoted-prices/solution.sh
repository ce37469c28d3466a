#!/usr/bin/env bash
python3 -c '
import csv
print("%.2f" % sum(int(r["qty"]) * float(r["unit_price"]) for r in csv.DictReader(open("inventory.csv"))))'
