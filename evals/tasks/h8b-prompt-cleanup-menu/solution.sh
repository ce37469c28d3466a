#!/usr/bin/env bash
set -e
printf '2\ny\n' | ./cleanup.sh
