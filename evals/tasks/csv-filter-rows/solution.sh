#!/usr/bin/env bash
# A known-good way to do the task, for the harness's own tests.
set -euo pipefail
python3 - <<'PY'
import csv
rows = list(csv.reader(open('people.csv', newline='')))
with open('older.csv', 'w', newline='') as out:
    w = csv.writer(out, lineterminator='\n')
    w.writerow(rows[0])
    w.writerows(r for r in rows[1:] if int(r[1]) > 30)
PY
