#!/usr/bin/env bash
tr -d '\r' < auth.log | grep -E 'event=login result=success ' | sed -E 's/.* user=([^ ]+).*/\1/' | tr 'A-Z' 'a-z' | sort -u > users.txt
echo "$(wc -l < users.txt) people logged in successfully."
