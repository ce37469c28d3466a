#!/usr/bin/env bash
grep -c '^\[[^]]*\] \[FATAL' nightly-import.log
