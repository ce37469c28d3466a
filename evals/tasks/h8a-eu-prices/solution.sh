#!/usr/bin/env bash
python3 - <<'PY'
import csv
with open("prices_eu.csv", encoding="utf-8", newline="") as f:
    rows = list(csv.reader(f, delimiter=";"))
with open("prices.csv", "w", encoding="utf-8", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(rows[0])
    for sku, name, price in rows[1:]:
        w.writerow([sku, name, price.replace(".", "").replace(",", ".")])
PY
