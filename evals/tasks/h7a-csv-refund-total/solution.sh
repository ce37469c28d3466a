#!/usr/bin/env bash
python3 - <<'PY'
import csv
rows = csv.DictReader(open("ceramics-orders.csv", newline=""))
total = sum(float(r["amount"]) for r in rows if r["status"] == "refunded")
open("refunds_total.txt", "w").write(f"{total:.2f}\n")
PY
