#!/usr/bin/env bash
sed -i 's/int(row\["amount"\])/float(row["amount"])/' report.py
python3 report.py
