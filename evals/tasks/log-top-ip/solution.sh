#!/usr/bin/env bash
# A known-good way to do the task, for the harness's own tests.
set -euo pipefail
cut -d' ' -f1 access.log | sort | uniq -c | sort -rn | head -n 1 | awk '{print $2}' > top_ip.txt
