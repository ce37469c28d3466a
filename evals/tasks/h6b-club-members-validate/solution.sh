#!/bin/bash
python3 - <<'PY'
import json
bad = []
for d in json.load(open("members.json"))["members"]:
    b = d.get("born")
    ok = (isinstance(d.get("name"), str) and d["name"] != ""
          and isinstance(d.get("email"), str) and "@" in d["email"]
          and isinstance(b, int) and not isinstance(b, bool) and 1900 <= b <= 2020
          and d.get("team") in ("U12", "U14", "Senior"))
    if not ok:
        bad.append(d["id"])
open("invalid_ids.txt", "w").write("".join(f"{i}\n" for i in sorted(bad)))
PY
