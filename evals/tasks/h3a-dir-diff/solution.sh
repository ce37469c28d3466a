#!/usr/bin/env bash
python3 - <<'PY'
import os, filecmp
def files(root):
    out = set()
    for d, _, fs in os.walk(root):
        for f in fs:
            out.add(os.path.relpath(os.path.join(d, f), root))
    return out
a, b = files('site'), files('site-backup')
for p in sorted(a | b):
    if p not in a or p not in b or not filecmp.cmp(os.path.join('site', p), os.path.join('site-backup', p), shallow=False):
        print(p)
PY
