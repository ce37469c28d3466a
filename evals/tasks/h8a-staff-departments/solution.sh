#!/usr/bin/env bash
python3 - <<'PY'
import csv
with open("departments.csv", newline="") as f:
    depts = {r["code"]: r["name"] for r in csv.DictReader(f)}
with open("employees.csv", newline="") as f, open("staff.csv", "w", newline="") as out:
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["name", "department", "start_date"])
    for r in csv.DictReader(f):
        w.writerow([r["name"], depts[r["dept_code"]], r["start_date"]])
PY
