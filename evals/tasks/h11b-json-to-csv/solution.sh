#!/usr/bin/env bash
python3 -c '
import json, csv, sys
w = csv.writer(open("users.csv", "w", newline=""))
w.writerow(["id", "name", "email"])
for u in json.load(open("users.json")):
    w.writerow([u["id"], u["name"], u["email"]])
'
