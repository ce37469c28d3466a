#!/bin/bash
python3 - <<'PY'
import json
from collections import Counter
counts = Counter()
for line in open("events.jsonl"):
    if line.strip():
        counts[json.loads(line)["status"]] += 1
json.dump(dict(counts), open("status_counts.json", "w"), indent=2)
PY
