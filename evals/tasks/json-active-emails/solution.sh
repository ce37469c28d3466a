#!/usr/bin/env bash
# A known-good way to do the task, for the harness's own tests.
set -euo pipefail
jq -r '.[] | select(.active) | .email' users.json > active_emails.txt
