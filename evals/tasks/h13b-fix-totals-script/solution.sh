#!/bin/bash
python3 - <<'PY'
src = open("totals.py").read()
src = src.replace("        for row in csv.reader(f):\n",
                  "        reader = csv.reader(f)\n        next(reader, None)\n        for row in reader:\n")
src = src.replace("totals[category] += amount", "totals[category] = totals.get(category, 0.0) + amount")
open("totals.py", "w").write(src)
PY
python3 totals.py expenses.csv
