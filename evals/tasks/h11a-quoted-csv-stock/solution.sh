#!/bin/bash
python3 -c '
import csv
print(sum(int(r["qty"]) for r in csv.DictReader(open("inventory.csv"))))
'
