#!/usr/bin/env bash
awk '$5 == "404" && $6 != "-" { s += $6 } END { print s + 0 }' cdn.log
# Sums the bytes column (6th) with awk for rows whose status column (5th) is exactly 404, skipping "-".
