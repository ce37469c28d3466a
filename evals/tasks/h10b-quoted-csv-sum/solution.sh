#!/bin/bash
python3 -c '
import csv
rows = csv.DictReader(open("orders.csv", newline=""))
print(round(sum(float(r["amount"]) for r in rows if r["status"] == "shipped"), 2))
' > shipped_total.txt
