#!/usr/bin/env bash
printf 'rgarza\nAmerica/Chicago\n' | ./add_account.sh
# Answers the two prompts in the script's order: username first, then time zone.
