#!/usr/bin/env bash
set -e
sed -i 's/^decimals = 7$/decimals = 2/' report.ini
printf 'title = Q3 Sales by Region\n' >> report.ini
mkdir -p out
./make_report
