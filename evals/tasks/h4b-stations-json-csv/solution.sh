#!/usr/bin/env bash
python3 - <<'PY'
import csv, json
with open("stations.json", encoding="utf-8") as f:
    stations = json.load(f)
with open("stations.csv", "w", newline="", encoding="utf-8") as f:
    w = csv.writer(f)
    w.writerow(["id", "name", "elevation_m"])
    for s in stations:
        w.writerow([s["id"], s["name"], s["elevation_m"]])
top = max(stations, key=lambda s: s["elevation_m"])
print(f"The highest station is {top['name']} at {top['elevation_m']} m.")
PY
# Python json + csv modules (keeps "007" as text, quotes names with commas); max() by elevation for the answer.
