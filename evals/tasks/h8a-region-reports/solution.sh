#!/usr/bin/env bash
python3 - <<'PY'
import csv, os
names = sorted(n for n in os.listdir("reports") if n.endswith(".csv"))
keep = []
for n in names:
    with open(os.path.join("reports", n), newline="") as f:
        if "region" in next(csv.reader(f), []):
            keep.append(n)
with open("with_region.txt", "w") as f:
    f.write("".join(n + "\n" for n in keep))
with open("all_regions.csv", "w", newline="") as out:
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["date", "region", "sales"])
    for n in keep:
        with open(os.path.join("reports", n), newline="") as f:
            for row in csv.DictReader(f):
                w.writerow([row["date"], row["region"], row["sales"]])
PY
