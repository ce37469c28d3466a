#!/usr/bin/env bash
awk '$1 == "2024-03-07" && $2 >= "14:00:00" && $2 <= "14:30:00" && $3 == "ERROR"' payments.log | wc -l
