#!/usr/bin/env bash
awk '$1 == "May" && $2 == "3" && $6 == "Accepted" { print $9 }' auth.log | sort -u > may3_users.txt
wc -l < may3_users.txt
# Matches month and day as separate awk fields (so May 13/30 don't match), takes the user after "Accepted ... for", sort -u, then counts.
