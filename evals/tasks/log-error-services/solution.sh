#!/usr/bin/env bash
# A known-good way to do the task, for the harness's own tests.
set -euo pipefail
awk '$2 == "ERROR" { gsub(/[][]/, "", $3); print $3 }' service.log | sort -u > services.txt
