#!/bin/bash
sed -i 's/totals.get(category, 0) + amount$/totals.get(category, 0) + float(amount)/' report.py
python3 report.py
