#!/usr/bin/env bash
awk '$3 == "ERROR" { gsub(/[][]/, "", $4); n[$4]++ } END { for (m in n) print n[m], m }' app.log |
  sort -k1,1nr -k2,2 | head -n 3 > top-errors.txt
