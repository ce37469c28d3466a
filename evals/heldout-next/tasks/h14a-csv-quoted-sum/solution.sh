#!/bin/bash
python3 - <<'PY' > canada_total.txt
import csv
with open("orders.csv", newline="") as f:
    total = sum(float(r["amount"]) for r in csv.DictReader(f) if r["country"] == "Canada")
print(f"{total:.2f}")
PY
