#!/usr/bin/env bash
set -e
sed -i 's/for i in range(1, len(data)):/for i in range(len(data)):/' report.py
python3 report.py > report.txt
