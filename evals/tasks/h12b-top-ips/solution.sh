#!/usr/bin/env bash
awk '{print $1}' access.log | sort | uniq -c | sort -rn | head -n 3 | awk '{print $2}' > top_ips.txt
