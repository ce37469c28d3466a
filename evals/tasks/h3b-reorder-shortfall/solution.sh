#!/bin/bash
python3 - <<'PY'
import csv, json
items = json.load(open("inventory.json"))["items"]
total = 0
with open("reorder.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["sku", "name", "shortfall"])
    for it in items:
        stock, level = float(it["stock"]), float(it["reorder_level"])
        if stock < level:
            short = level - stock
            total += short
            w.writerow([it["sku"], it["name"], f"{short:g}"])
print(f"{total:g}")
PY
