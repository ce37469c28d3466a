#!/usr/bin/env bash
# A known-good way to do the task, for the harness's own tests.
set -euo pipefail
printf 'Okafor\nwest\n' | ./newcard.sh
