#!/bin/bash
python3 - <<'PY'
import re
t = open("timetable.json", encoding="utf-8").read()
t = re.sub(r'(?m)^\s*//.*\n', '', t)                      # a commented-out (cancelled) lesson
t = t.replace('"Mrs Osei"}\n    {"day": "Tue"', '"Mrs Osei"},\n    {"day": "Tue"')  # missing comma
t = re.sub(r'\},(\s*\])', r'}\1', t)                       # trailing comma
t = t.replace('"day": "Thurs"', '"day": "Thu"')
open("timetable.json", "w", encoding="utf-8").write(t)
PY
python3 make_timetable.py
