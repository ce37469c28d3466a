#!/usr/bin/env bash
# A known-good way to do the task, for the harness's own tests.
set -euo pipefail
awk '$2 == "ERROR"' app.log | wc -l | tr -d ' ' > errors.txt
