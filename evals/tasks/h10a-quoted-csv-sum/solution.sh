#!/usr/bin/env bash
python3 -c '
import csv
t = sum(float(r["amount"]) for r in csv.DictReader(open("expenses.csv")) if r["category"] == "Travel")
print(f"{t:.2f}")'
