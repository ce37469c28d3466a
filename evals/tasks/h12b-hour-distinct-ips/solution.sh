#!/usr/bin/env bash
grep '/2024:10:' access.log > ten.log
awk '{print $1}' ten.log | sort -u | wc -l
