#!/bin/bash
sed -i 's/int(row\["height_m"\])/float(row["height_m"])/' tide_summary.py
python3 tide_summary.py
