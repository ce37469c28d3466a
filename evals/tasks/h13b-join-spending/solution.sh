#!/bin/bash
python3 - <<'PY'
import csv
names = {r["customer_id"]: r["name"] for r in csv.DictReader(open("customers.csv"))}
totals = {}
for r in csv.DictReader(open("orders.csv")):
    totals[r["customer_id"]] = totals.get(r["customer_id"], 0) + float(r["amount"])
with open("spending.csv", "w") as f:
    f.write("name,total\n")
    for cid, t in sorted(totals.items(), key=lambda kv: -kv[1]):
        f.write(f"{names[cid]},{t:.2f}\n")
PY
