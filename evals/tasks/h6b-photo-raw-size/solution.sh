#!/bin/bash
find shoots -type f -iname '*.cr2' -printf '%s\n' | awk '{s+=$1} END {print s}'
