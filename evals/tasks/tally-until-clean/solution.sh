#!/usr/bin/env bash
# A known-good way to do the task, for the harness's own tests.
set -euo pipefail
python3 tally.py || printf 'threshold=3\n' > tally.conf
python3 tally.py
