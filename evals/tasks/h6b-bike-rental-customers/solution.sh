#!/bin/bash
awk '$1 ~ /^2024-07-/ && $3 == "RENT" { sub(/^customer=/, "", $4); print $4 }' rentals.log | sort -u > july_customers.txt
wc -l < july_customers.txt
