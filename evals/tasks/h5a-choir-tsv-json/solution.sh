#!/usr/bin/env bash
python3 -c '
import csv, json
with open("members.tsv", newline="") as f:
    rows = list(csv.DictReader(f, delimiter="\t"))
for r in rows:
    r["years"] = int(r["years"])
with open("members.json", "w") as out:
    json.dump(rows, out, indent=2)
'
