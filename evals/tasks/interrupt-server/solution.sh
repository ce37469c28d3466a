#!/usr/bin/env bash
# A known-good way to do the task, for the harness's own tests.
set -euo pipefail
# Job control, so the background job does not start with SIGINT ignored.
set -m
./serve.sh > serve.out &
pid=$!
until grep -q listening serve.out 2>/dev/null; do sleep 0.1; done
kill -INT "$pid"
wait "$pid" || true
grep -oE '[0-9]+' serve.out | head -n 1 > port.txt
