#!/usr/bin/env bash
python3 - <<'PY'
src = open("totals.py").read()
src = src.replace("        for line in f:\n", "        next(f)  # skip the header\n        for line in f:\n", 1)
open("totals.py", "w").write(src)
PY
python3 totals.py sales.csv > totals.txt
