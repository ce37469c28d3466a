#!/bin/bash
python3 - <<'PY'
import csv
rows = list(csv.DictReader(open("scores.tsv", newline=""), delimiter="\t"))
scores = [float(r["score"]) for r in rows if r["score"].strip() != ""]
print(f"{sum(scores) / len(scores):.1f}")
PY
