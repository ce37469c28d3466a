#!/usr/bin/env bash
sed -i -e 's/row\["Category"\]/row["category"]/' -e 's/int(row\["amount"\])/float(row["amount"])/' summarize.py
python3 summarize.py
