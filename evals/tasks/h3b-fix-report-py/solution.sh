#!/bin/bash
sed -i 's/total += row\["amount"\]/total += float(row["amount"].replace(",", ""))/' report.py
python3 report.py
