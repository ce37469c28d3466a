#!/bin/bash
sed -i 's/amount = int(row\["amount"\])/amount = float(row["amount"])/' report.py
