#!/bin/bash
python3 - <<'PY'
import csv, json
with open("contacts.csv", newline="") as f, open("contacts.jsonl", "w") as out:
    for row in csv.DictReader(f):
        out.write(json.dumps(row) + "\n")
PY
