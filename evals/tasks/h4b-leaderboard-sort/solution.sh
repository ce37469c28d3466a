#!/usr/bin/env bash
{ head -n 1 players.csv; tail -n +2 players.csv | sort -t, -k3,3nr; } > ranked.csv
# Keeps the header, then sorts the data rows numerically (descending) on the third column.
