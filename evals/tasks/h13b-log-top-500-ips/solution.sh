#!/bin/bash
awk '$9 == 500 {print $1}' access.log | sort | uniq -c | sort -rn | head -3 | awk '{print $2}' > top_ips.txt
