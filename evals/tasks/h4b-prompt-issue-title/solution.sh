#!/usr/bin/env bash
printf 'Frost & Fern: Winter Trails\n' | ./new_issue.sh
# Pipes the title into the script's single read -p prompt.
