#!/bin/bash
python3 - <<'PY'
import json
servers = json.load(open("servers.json"))["servers"]
with open("disk_alerts.txt", "w") as out:
    for s in servers:
        if float(s["disks"]["root"]["used_pct"]) >= 90:
            out.write(s["hostname"] + "\n")
PY
