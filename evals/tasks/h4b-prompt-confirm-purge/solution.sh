#!/usr/bin/env bash
printf 'y\n' | ./purge_partial.sh
# Confirms the script's [y/N] prompt by piping "y", so the script deletes and logs the partial snapshots itself.
