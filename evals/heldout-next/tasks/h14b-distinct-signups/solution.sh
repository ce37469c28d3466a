#!/usr/bin/env bash
echo "$(tail -n +2 signups.tsv | cut -f2 | sort -u | wc -l) different email addresses"
