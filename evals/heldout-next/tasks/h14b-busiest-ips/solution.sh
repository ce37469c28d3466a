#!/usr/bin/env bash
grep -F '/2024:14:' access.log | awk '{ print $1 }' | sort | uniq -c | sort -rn | head -n 3 | awk '{ print $2 }' > busiest_ips.txt
