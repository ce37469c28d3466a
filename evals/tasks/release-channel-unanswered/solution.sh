#!/usr/bin/env bash
# A known-good way to do the task, for the harness's own tests: stop at the question the task does not answer.
set -euo pipefail
echo "publish.sh asks 'Release channel (stable/beta):' and the task does not say which; please say it."
