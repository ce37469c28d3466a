#!/bin/bash
python3 -c '
import csv
print("%.2f" % sum(float(r["total"]) for r in csv.DictReader(open("orders.csv"))))'
