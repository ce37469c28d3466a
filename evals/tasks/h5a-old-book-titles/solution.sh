#!/usr/bin/env bash
python3 -c '
import csv
with open("books.csv", newline="") as f, open("old_titles.txt", "w") as out:
    for r in csv.DictReader(f):
        if int(r["year"]) < 1950:
            out.write(r["title"] + "\n")
'
