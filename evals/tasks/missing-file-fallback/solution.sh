#!/usr/bin/env bash
# A known-good way to do the task, for the harness's own tests.
set -euo pipefail
if [ -f data/input.txt ]; then wc -l < data/input.txt > lines.txt; else echo MISSING > lines.txt; fi
