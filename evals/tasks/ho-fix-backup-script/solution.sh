#!/usr/bin/env bash
# A known-good way to do the task, for the harness's own tests.
set -euo pipefail
sed -i 's/^  count=\$((count + 1))$/&\ndone/' backup.sh
bash backup.sh
