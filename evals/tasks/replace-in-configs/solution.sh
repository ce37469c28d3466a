#!/usr/bin/env bash
# A known-good way to do the task, for the harness's own tests.
set -euo pipefail
sed -i 's/foo_v1/foo_v2/g' etc/*.conf
