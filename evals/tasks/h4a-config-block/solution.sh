#!/usr/bin/env bash
awk '$0 == "-----END CONFIG-----" { inside = 0 } inside { print } $0 == "-----BEGIN CONFIG-----" { inside = 1 }' bootlog.txt > config.txt
# An awk flag set after the exact BEGIN line and cleared at the exact END line prints only the lines in between.
