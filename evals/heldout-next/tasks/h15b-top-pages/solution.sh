#!/usr/bin/env bash
awk '{print $7}' web.log | sort | uniq -c | sort -rn | head -3 | awk '{print $2}' > top3.txt
