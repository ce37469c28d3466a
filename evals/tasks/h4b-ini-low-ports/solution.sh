#!/usr/bin/env bash
python3 - <<'PY'
import configparser
c = configparser.ConfigParser()
c.read("services.ini")
low = [s for s in c.sections() if c.has_option(s, "port") and int(c[s]["port"]) < 1024]
with open("low_ports.txt", "w") as f:
    f.write("".join(s + "\n" for s in low))
print(f"{len(low)} sections have a port below 1024.")
PY
# configparser skips comments and reads only the "port" key; strict < 1024 excludes printing (1024).
