#!/usr/bin/env bash
python3 - <<'PY'
seen = set()
with open("subscribers.csv") as f, open("subscribers_unique.csv", "w") as out:
    out.write(f.readline())
    for line in f:
        key = line.split(",", 1)[0].strip().lower()
        if key not in seen:
            seen.add(key)
            out.write(line)
PY
