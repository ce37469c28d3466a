#!/usr/bin/env bash
for d in datasets/*/; do printf '%s %s\n' "$(find "$d" -type f -printf '%s\n' | awk '{s+=$1} END {print s}')" "$(basename "$d")"; done | sort -n | tail -n 1 | cut -d' ' -f2
