#!/usr/bin/env bash
# A known-good way to do the task, for the harness's own tests.
set -euo pipefail
cd photos
for f in *' '*; do
  mv -- "$f" "${f// /_}"
done
