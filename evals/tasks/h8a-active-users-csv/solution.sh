#!/usr/bin/env bash
python3 - <<'PY'
import csv, json
users = [u for u in json.load(open("users.json")) if u.get("active") is True]
with open("active_users.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["id", "name", "email"])
    for u in sorted(users, key=lambda u: u["id"]):
        w.writerow([u["id"], u["name"], (u.get("contact") or {}).get("email", "")])
PY
