#!/bin/bash
sed -i 's/amount = row\["qty"\] \* row\["unit_price"\]/amount = int(row["qty"]) * float(row["unit_price"])/' report.py
python3 report.py
