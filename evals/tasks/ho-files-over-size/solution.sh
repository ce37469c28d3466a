#!/usr/bin/env bash
# A known-good way to do the task, for the harness's own tests.
set -euo pipefail
find uploads -type f -size +1000c | LC_ALL=C sort > big.txt
