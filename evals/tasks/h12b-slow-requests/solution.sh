#!/usr/bin/env bash
awk '{ d = $NF; sub(/ms$/, "", d); if (d + 0 > 500) n++ } END { print n + 0 }' requests.log > slow_count.txt
