#!/usr/bin/env bash
# A known-good way to do the task, for the harness's own tests.
set -euo pipefail
awk -F= '/^\[/{s=$0} s=="[database]" && $1=="port" {print $2}' config.ini
