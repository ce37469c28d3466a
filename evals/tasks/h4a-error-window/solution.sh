#!/usr/bin/env bash
awk '$1 == "2024-03-12" && $2 >= "14:00:00" && $2 <= "14:59:59" && $3 == "ERROR"' payments.log | wc -l
# Filters on the date, time and level columns with awk (not on text anywhere in the line) and counts the lines.
