#!/usr/bin/env bash
python3 - <<'PY'
p = "report.py"
s = open(p).read()
s = s.replace("        for row in csv.reader(f):\n", "        reader = csv.reader(f)\n        next(reader)\n        for row in reader:\n")
open(p, "w").write(s)
PY
python3 report.py sales.csv
