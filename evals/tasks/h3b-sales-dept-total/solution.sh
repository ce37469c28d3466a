#!/bin/bash
python3 - <<'PY'
import csv
total = sum(float(r["amount"]) for r in csv.DictReader(open("deals.csv", newline="")) if r["department"] == "Sales")
open("sales_total.txt", "w").write(f"{total:.2f}\n")
PY
