#!/usr/bin/env bash
# A known-good way to do the task, for the harness's own tests.
set -euo pipefail
tr '[:upper:]' '[:lower:]' < emails.txt | sort -u > unique.txt
