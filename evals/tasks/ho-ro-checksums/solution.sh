#!/usr/bin/env bash
# A known-good way to do the task, for the harness's own tests.
set -euo pipefail
cd release
sha256sum -c SHA256SUMS 2>/dev/null | grep -v ': OK$' | sed 's/: FAILED.*//'
