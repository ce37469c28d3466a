#!/usr/bin/env bash
top="$(awk '{print $1}' access.log | sort | uniq -c | sort -rn | awk 'NR == 1 {print $2}')"
awk -v ip="$top" '$1 == ip' access.log > top_client.log
# Ranks clients by the first field with sort | uniq -c, then copies the lines whose first field equals the winner.
