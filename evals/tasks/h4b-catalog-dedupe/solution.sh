#!/usr/bin/env bash
awk '!seen[$0]++' books.csv > unique.csv
# awk keeps the first occurrence of each line, in order, including the unterminated last line.
