#!/usr/bin/env bash
tr 'A-Z' 'a-z' < subscribers.txt | grep -v '^[[:space:]]*$' | LC_ALL=C sort -u > unique.txt
