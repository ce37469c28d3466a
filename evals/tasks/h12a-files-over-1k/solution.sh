#!/usr/bin/env bash
find data -maxdepth 1 -type f -size +1023c -printf '%f\n' | sort > big_files.txt
