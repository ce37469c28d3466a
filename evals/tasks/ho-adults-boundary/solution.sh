#!/usr/bin/env bash
# A known-good way to do the task, for the harness's own tests.
set -euo pipefail
awk -F, 'NR > 1 && $2 + 0 >= 18' members.csv | wc -l
