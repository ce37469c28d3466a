#!/usr/bin/env bash
set -e
cd project
find . -type f -name '*.log' -print0 | while IFS= read -r -d '' f; do
  mkdir -p "../logs-archive/$(dirname "$f")"
  mv "$f" "../logs-archive/$f"
done
