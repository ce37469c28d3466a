#!/usr/bin/env bash
# A known-good way to do the task, for the harness's own tests.
set -euo pipefail
for f in backups/backup-*.tar.gz; do
  d=${f#backups/backup-}; d=${d%.tar.gz}
  if [ "$d" -lt 20240301 ]; then rm -- "$f"; fi
done
