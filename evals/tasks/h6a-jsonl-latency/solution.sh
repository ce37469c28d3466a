#!/usr/bin/env bash
python3 - <<'PY'
import json
vals = []
for line in open("requests.jsonl"):
    if not line.strip():
        continue
    rec = json.loads(line)
    if rec.get("service") == "api" and rec.get("latency_ms") is not None:
        vals.append(rec["latency_ms"])
print(f"The average latency is {sum(vals) / len(vals):.1f} ms.")
PY
