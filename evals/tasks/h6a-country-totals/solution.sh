#!/usr/bin/env bash
python3 - <<'PY'
import csv
from decimal import Decimal
cust = {r["customer_id"]: r["country"] for r in csv.DictReader(open("customers.csv", newline=""))}
tot = {c: Decimal(0) for c in cust.values()}
for r in csv.DictReader(open("orders.csv", newline="")):
    if not r.get("order_id") or r["status"] == "cancelled":
        continue
    if r["amount"]:
        tot[cust[r["customer_id"]]] += Decimal(r["amount"])
with open("country_totals.csv", "w") as f:
    f.write("country,total\n")
    for c in sorted(tot):
        f.write(f"{c},{tot[c]:.2f}\n")
PY
