#!/usr/bin/env bash
set -e
sed -i 's/^treshold = 0.85$/threshold = 85/' alerts.conf
./alerts.py
