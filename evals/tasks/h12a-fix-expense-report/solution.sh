#!/usr/bin/env bash
python3 - <<'PY'
s = open("report.py").read()
s = s.replace("        for row in csv.reader(f):\n", "        reader = csv.reader(f)\n        next(reader)\n        for row in reader:\n")
s = s.replace("totals[category] += float(amount)", "totals[category] = totals.get(category, 0.0) + float(amount)")
open("report.py", "w").write(s)
PY
python3 report.py expenses.csv
