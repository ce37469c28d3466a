#!/usr/bin/env bash
# A known-good way to do the task, for the harness's own tests.
set -euo pipefail
grep -oE 'Accepted [a-z-]+ for [^ ]+' auth.log | awk '{ print $4 }' | sort -u | wc -l
