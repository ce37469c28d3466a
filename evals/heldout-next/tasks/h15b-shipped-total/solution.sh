#!/usr/bin/env bash
python3 -c '
import csv
rows = csv.DictReader(open("orders.csv", newline=""))
print("%.2f" % sum(float(r["amount"]) for r in rows if r["status"] == "shipped"))'
