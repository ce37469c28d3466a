#!/usr/bin/env bash
sed -i -e 's/int(row\["amount"\])/float(row["amount"])/' -e 's/row\["region"\]/row["Region"]/' report.py
python3 report.py sales.csv
