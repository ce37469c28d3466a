#!/usr/bin/env bash
python3 - <<'PY'
import json
data, sec = {}, None
for raw in open("app.ini"):
    line = raw.strip()
    if not line or line[0] in ";#":
        continue
    if line.startswith("[") and line.endswith("]"):
        sec = line[1:-1].strip()
        data.setdefault(sec, {})
        continue
    key, _, value = line.partition("=")
    data[sec][key.strip()] = value.strip()
json.dump(data, open("app.json", "w"), indent=2)
PY
