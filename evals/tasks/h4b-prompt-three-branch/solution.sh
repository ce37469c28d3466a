#!/usr/bin/env bash
printf 'Harbour Street\n0042\nl.moreau@tidewater.example\n' | ./setup_branch.sh
# Pipes the three answers (name, code with its leading zeros, email) in the order the script asks.
