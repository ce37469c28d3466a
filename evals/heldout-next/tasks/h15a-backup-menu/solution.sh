#!/usr/bin/env bash
printf '2\n9\n4\n' | ./backup_tool.sh
