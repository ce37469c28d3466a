#!/usr/bin/env bash
# A known-good way to do the task, for the harness's own tests.
set -euo pipefail
sed -i 's/total = total + line/total = total + int(line)/' stats.py
python3 stats.py > mean.txt
