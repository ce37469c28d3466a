#!/bin/bash
tail -n +2 orders.tsv | cut -f2 | sort -u | wc -l
