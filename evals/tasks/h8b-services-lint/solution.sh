#!/usr/bin/env bash
set -e
sed -i -e 's/^\t  timeout: 2m$/    timeout: 120/' -e 's/timeout: 45s$/timeout: 45/' services.yml
python3 lint.py services.yml
