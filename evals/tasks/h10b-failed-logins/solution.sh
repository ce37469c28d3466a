#!/bin/bash
sed -nE 's/.*Failed password for (invalid user )?([^ ]+) from .*/\2/p' auth.log | sort -u > failed_users.txt
