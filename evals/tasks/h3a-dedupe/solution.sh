#!/usr/bin/env bash
cd downloads
python3 - <<'PY'
import os, hashlib
seen = {}
for name in sorted(f for f in os.listdir('.') if os.path.isfile(f)):
    h = hashlib.sha256(open(name, 'rb').read()).hexdigest()
    if h in seen:
        os.remove(name)
    else:
        seen[h] = name
PY
