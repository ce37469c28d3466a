#!/usr/bin/env bash
python3 -c 'import csv, json; json.dump(list(csv.DictReader(open("inventory.csv"))), open("inventory.json", "w"), indent=2)'
