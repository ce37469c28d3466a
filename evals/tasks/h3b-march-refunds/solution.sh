#!/bin/bash
python3 - <<'PY'
import csv
rows = csv.DictReader(open("orders.csv", newline=""))
print(sum(1 for r in rows if r["status"] == "refunded" and r["date"].startswith("2024-03-")))
PY
