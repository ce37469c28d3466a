#!/usr/bin/env bash
grep -oiw budget minutes.txt | wc -l
# Prints each case-insensitive whole-word match on its own line with grep -oiw and counts them.
