#!/usr/bin/env bash
n="$(find data -type f -size 0 | wc -l)"
find data -type f -size 0 -delete
echo "Deleted $n empty files."
