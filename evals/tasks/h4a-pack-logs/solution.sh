#!/usr/bin/env bash
set -e
files=()
while IFS= read -r -d '' f; do files+=("${f#app/}"); done < <(find app -maxdepth 1 -type f -name '*.log' -print0)
tar -czf app-logs.tar.gz -C app -- "${files[@]}"
for f in "${files[@]}"; do rm -- "app/$f"; done
# Collects regular files (find -type f, so the old.log directory is excluded) named *.log, tars them from inside app/ with -C, then removes them.
