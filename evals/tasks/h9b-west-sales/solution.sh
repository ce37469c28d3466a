#!/bin/bash
python3 - <<'PY'
import csv
print("%.2f" % sum(float(r["amount"]) for r in csv.DictReader(open("orders.csv")) if r["region"] == "West"))
PY
