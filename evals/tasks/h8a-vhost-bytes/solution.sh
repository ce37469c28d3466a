#!/usr/bin/env bash
python3 - <<'PY'
tot = {}
for line in open("vhosts.log"):
    f = line.split()
    if not f:
        continue
    tot[f[0]] = tot.get(f[0], 0) + (0 if f[-1] == "-" else int(f[-1]))
with open("bytes_by_host.csv", "w") as out:
    out.write("host,bytes\n")
    for h, v in sorted(tot.items(), key=lambda kv: -kv[1]):
        out.write(f"{h},{v}\n")
PY
