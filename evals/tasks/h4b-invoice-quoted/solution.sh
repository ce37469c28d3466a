#!/usr/bin/env bash
python3 - <<'PY'
import csv
with open("invoices.csv", newline="") as f:
    total = sum(float(r["amount"]) for r in csv.DictReader(f) if r["client"] == "Hartley, Moss & Co")
print(f"The total billed to Hartley, Moss & Co is {total:.2f}.")
PY
# Parses the CSV properly (quoted commas) and sums the amount for the exact client name.
