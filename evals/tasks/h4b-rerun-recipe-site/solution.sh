#!/usr/bin/env bash
./publish.sh || { mkdir site && ./publish.sh; }
# The first run says site/ is missing; create the directory and rerun, leaving the script untouched.
