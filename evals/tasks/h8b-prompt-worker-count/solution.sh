#!/usr/bin/env bash
set -e
printf '6\n' | ./configure.sh
