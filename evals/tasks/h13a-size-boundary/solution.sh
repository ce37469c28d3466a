#!/usr/bin/env bash
find data -maxdepth 1 -type f -size +2048c -printf '%f\n' > big_files.txt
