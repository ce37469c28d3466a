#!/usr/bin/env bash
./archive_logs.py || sed -i 's/^retain_days=/RETAIN_DAYS=/' job.conf
./archive_logs.py || mkdir archive
./archive_logs.py
# First error: lower-case key, renamed to RETAIN_DAYS; second error: archive/ missing, created; third run succeeds.
