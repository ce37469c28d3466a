#!/usr/bin/env bash
# A known-good way to do the task, for the harness's own tests.
set -euo pipefail
find data -type f -printf '%s %p\n' | sort -n | tail -n 1 | cut -d' ' -f2 > largest.txt
