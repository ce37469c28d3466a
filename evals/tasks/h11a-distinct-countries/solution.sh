#!/bin/bash
tail -n +2 signups.csv | cut -d, -f2 | sort -u | wc -l > countries.txt
