#!/usr/bin/env bash
set -e
python3 - <<'PY'
s = open("app.ini").read()
s = s.replace("port = 8080  ; change for production\n", "; change for production\nport = 8080\n")
s = s.replace("[Database]", "[database]")
open("app.ini", "w").write(s)
PY
python3 checkconf.py app.ini
