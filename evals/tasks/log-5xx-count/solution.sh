#!/usr/bin/env bash
# A known-good way to do the task, for the harness's own tests.
set -euo pipefail
awk '$9 >= 500 && $9 < 600' access.log | wc -l | tr -d ' '
