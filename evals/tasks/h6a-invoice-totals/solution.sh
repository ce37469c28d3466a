#!/usr/bin/env bash
python3 - <<'PY' > totals.txt
import csv, glob, os
from decimal import Decimal
for path in sorted(glob.glob("invoices/*.csv")):
    total = Decimal("0")
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row.get("amount"):
                total += Decimal(row["amount"])
    print(os.path.basename(path), f"{total:.2f}")
PY
