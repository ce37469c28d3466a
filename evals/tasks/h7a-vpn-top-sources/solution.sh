#!/usr/bin/env bash
grep 'session accepted' vpn-gw1.log | grep -o 'src=[^ ]*' | cut -d= -f2 | sort | uniq -c | sort -rn | head -n 3 | awk '{print $2, $1}' > top_sources.txt
