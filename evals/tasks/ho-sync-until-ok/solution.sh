#!/usr/bin/env bash
# A known-good way to do the task, for the harness's own tests.
set -euo pipefail
python3 sync.py || true
printf 'target = mirror\n' >> sync.ini
python3 sync.py || true
mkdir -p mirror
python3 sync.py
