#!/usr/bin/env bash
# A known-good way to do the task, for the harness's own tests.
set -euo pipefail
printf '%s\n' tidepool 'Ines Moreau' | ./setup.sh
