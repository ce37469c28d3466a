#!/usr/bin/env bash
set -e
./stock.py | awk 'NR > 1 && $NF < 5 { $NF = ""; sub(/ +$/, ""); print }' | LC_ALL=C sort > reorder.txt
