#!/bin/bash
python3 - <<'PY'
lines = open("sync.ini").read().splitlines()
out, section = [], None
for line in lines:
    if line.startswith("["):
        section = line.strip()
    if section == "[remote]" and line.startswith("retries"):
        line = "retries = 3"
        out.append(line)
        out.append("timeout = 30")
        continue
    out.append(line)
open("sync.ini", "w").write("\n".join(out) + "\n")
PY
./sync.py
