#!/usr/bin/env bash
python3 - <<'PY' > portland_total.txt
import csv
with open("orders.csv", newline="") as f:
    total = sum(float(r["amount"]) for r in csv.DictReader(f) if r["city"] == "Portland")
print(f"{total:.2f}")
PY
