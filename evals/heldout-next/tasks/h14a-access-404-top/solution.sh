#!/bin/bash
awk '$9 == 404 { print $1 }' access.log | sort | uniq -c | sort -rn | head -n 1 | awk '{ print $2 }' > top404.txt
