#!/usr/bin/env bash
awk '$9 == 404 { split($7, a, "?"); c[a[1]]++ } END { for (k in c) print c[k], k }' access.log | sort -rn | head -1 | awk '{print $2}'
