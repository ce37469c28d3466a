#!/usr/bin/env bash
cat access.log access.log.1 | awk '{c[$1]++} END {for (ip in c) print c[ip], ip}' | sort -rn | head -3 | awk '{print $2, $1}' > top_clients.txt
