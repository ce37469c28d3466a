#!/usr/bin/env bash
tar -xzf logs-archive.tar.gz
find var -type f -name '*.log' -exec cat {} + | grep -c '\[ERROR\]'
