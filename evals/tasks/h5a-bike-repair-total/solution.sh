#!/usr/bin/env bash
python3 -c '
import csv
with open("repairs.csv", newline="") as f:
    print(sum(float(r["cost"]) for r in csv.DictReader(f)))
'
