#!/usr/bin/env bash
cd scans
for f in *' '*; do
  mv -- "$f" "${f// /_}"
done
