#!/bin/bash
python3 -c '
import csv
print(sum(int(r["stock"]) for r in csv.DictReader(open("inventory.csv"))))
'
