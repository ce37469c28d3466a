#!/usr/bin/env bash
# A known-good way to do the task, for the harness's own tests.
set -euo pipefail
wc -w < book-a.txt | tr -d ' ' > a.count
wc -w < book-b.txt | tr -d ' ' > b.count
