#!/bin/bash
python3 -c '
import json,csv,sys
w=csv.writer(open("users.csv","w",newline=""), lineterminator="\n")
w.writerow(["name","email"])
for u in json.load(open("users.json")): w.writerow([u["name"],u["email"]])
'
