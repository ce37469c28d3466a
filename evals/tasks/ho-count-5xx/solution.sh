#!/usr/bin/env bash
# A known-good way to do the task, for the harness's own tests.
set -euo pipefail
awk '$9 ~ /^5[0-9][0-9]$/' access.log | wc -l
