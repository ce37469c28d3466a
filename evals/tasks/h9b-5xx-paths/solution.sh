#!/bin/bash
awk '$9 ~ /^5[0-9][0-9]$/' web.log > server_errors.log
awk '{print $7}' server_errors.log | sort -u | wc -l
