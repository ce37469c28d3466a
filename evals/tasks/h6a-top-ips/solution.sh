#!/usr/bin/env bash
awk 'NF { print $1 }' access.log | sort | uniq -c | sort -rn | head -n 3 | awk '{ print $1, $2 }' > top-ips.txt
