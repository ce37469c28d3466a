#!/usr/bin/env bash
find data -type f -printf '%s\t%p\n' | sort -n | tail -n 1 | awk -F'\t' '{print $2 " is the biggest: " $1 " bytes"}'
