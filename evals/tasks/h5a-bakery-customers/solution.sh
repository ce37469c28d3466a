#!/usr/bin/env bash
tail -n +2 orders.csv | cut -d, -f2 | sort -u | wc -l
