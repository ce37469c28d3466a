#!/usr/bin/env bash
# A known-good way to do the task, for the harness's own tests.
set -euo pipefail
awk '{ print $1 }' access.log | sort | uniq -c | sort -rn | head -n 3 | awk '{ print $2 }' > top_ips.txt
