#!/bin/bash
sed -i 's/for row in csv.reader(f):/for row in list(csv.reader(f))[1:]:/' report.py
python3 report.py scores.csv
