#!/bin/bash
tar -xzf sales-2024.tar.gz
python3 - <<'PY'
import csv
lines, year = [], 0.0
for q in range(1, 5):
    with open(f"sales/q{q}.csv") as f:
        t = sum(float(r["amount"]) for r in csv.DictReader(f))
    year += t
    lines.append(f"Q{q} {t:.2f}")
lines.append(f"YEAR {year:.2f}")
open("totals.txt", "w").write("\n".join(lines) + "\n")
PY
