#!/bin/bash
awk -F, '$2 == "north" { s += $4 } END { printf "%.2f\n", s }' sales.csv
