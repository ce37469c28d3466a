#!/usr/bin/env bash
python3 - <<'PY'
import json
n = 0
with open("events.jsonl") as f:
    for line in f:
        if line.strip():
            e = json.loads(line)
            if e.get("service") == "auth" and str(e.get("level", "")).lower() == "error":
                n += 1
print(f"{n} events from the auth service have level error.")
PY
# Parses each JSON line and counts service == "auth" with a case-insensitive level of "error".
