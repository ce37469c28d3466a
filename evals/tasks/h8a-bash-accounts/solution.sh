#!/usr/bin/env bash
grep -vE '^[[:space:]]*(#|$)' passwd.txt | awk -F: '$7 ~ /\/bash$/' | wc -l
