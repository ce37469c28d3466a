#!/usr/bin/env bash
sed -i 's/^workers = many$/workers = 4/' settings.ini
mkdir -p data output
mv sales.csv data/sales.csv
./run_report.sh
