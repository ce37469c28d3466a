#!/bin/bash
unzip -o data.zip
python3 -c '
import csv, json
rows = []
for r in csv.DictReader(open("export/inventory.csv", newline="")):
    r["qty"] = int(r["qty"]); r["price"] = float(r["price"])
    rows.append(r)
json.dump(rows, open("inventory.json", "w"), indent=2)
'
