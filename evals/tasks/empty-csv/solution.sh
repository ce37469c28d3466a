#!/usr/bin/env bash
# A known-good way to do the task, for the harness's own tests.
set -euo pipefail
awk -F, 'NR > 1 { s += $2 } END { print s + 0 }' payments.csv > total.txt
