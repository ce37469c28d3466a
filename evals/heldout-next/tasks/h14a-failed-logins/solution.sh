#!/bin/bash
grep 'Failed password for' auth.log | sed -E 's/.*Failed password for ([^ ]+) from.*/\1/' | sort -u > failed_users.txt
