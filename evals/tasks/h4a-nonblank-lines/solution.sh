#!/usr/bin/env bash
awk 'NF > 0' speech.txt | wc -l
# awk keeps lines with at least one field (non-whitespace text), including the unterminated last line.
