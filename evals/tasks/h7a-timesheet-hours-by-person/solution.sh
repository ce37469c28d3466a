#!/usr/bin/env bash
{ echo "name,hours"; tr -d '\r' < timesheet-week36.csv | awk -F, 'NR > 1 { h[$4] += $3 } END { for (n in h) print n "," h[n] }' | LC_ALL=C sort; } > hours_by_person.csv
