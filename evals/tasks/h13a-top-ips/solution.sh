#!/usr/bin/env bash
grep '\[05/Mar/2024:' access.log | awk '{print $1}' | sort | uniq -c | sort -rn | head -n 3 | awk '{print $2}' > top_ips.txt
