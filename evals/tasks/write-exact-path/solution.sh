#!/usr/bin/env bash
# A known-good way to do the task, for the harness's own tests.
set -euo pipefail
mkdir -p reports/2024
echo "hello clive" > reports/2024/summary.txt
