#!/bin/bash
python3 - <<'PY'
import csv, json
with open("plays.jsonl", encoding="utf-8") as src, open("plays.csv", "w", encoding="utf-8", newline="") as out:
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["played_at", "artist", "title", "seconds"])
    for line in src:
        if not line.strip():
            continue
        d = json.loads(line)
        if d.get("type") == "song":
            w.writerow([d.get(k, "") for k in ("played_at", "artist", "title", "seconds")])
PY
