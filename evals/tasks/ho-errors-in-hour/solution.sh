#!/usr/bin/env bash
# A known-good way to do the task, for the harness's own tests.
set -euo pipefail
awk '$1 == "2024-05-14" && $2 >= "10:00:00" && $2 <= "10:59:59" && $3 == "ERROR"' app.log | wc -l
