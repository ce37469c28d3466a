#!/bin/bash
python3 - <<'PY'
import os, hashlib
seen = {}
removed = []
for d in sorted(os.listdir("scores")):
    for f in sorted(os.listdir(os.path.join("scores", d))):
        p = os.path.join("scores", d, f)
        data = open(p, "rb").read()
        if not data:
            continue
        h = hashlib.sha256(data).hexdigest()
        if h in seen:
            os.remove(p); removed.append(p)
        else:
            seen[h] = p
open("removed.txt", "w").write("".join(p + "\n" for p in removed))
PY
