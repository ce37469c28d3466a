#!/usr/bin/env bash
mkdir -p auth-logs
tar -xzf auth-logs.tar.gz -C auth-logs
cat auth-logs/* | grep 'Failed password for' | sed -E 's/.*Failed password for ([^ ]+) .*/\1/' | sort -u > failed_users.txt
