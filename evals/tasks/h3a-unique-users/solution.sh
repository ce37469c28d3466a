#!/usr/bin/env bash
grep -E 'sshd\[[0-9]+\]: Accepted ' auth.log | sed -E 's/.* Accepted [a-z]+ for ([^ ]+) from .*/\1/' | sort -u | wc -l
