#!/bin/bash
awk -F'\t' 'NR > 1 && $5 == "held" { h[$3] += $4 } END { for (t in h) printf "%s\t%.2f\n", t, h[t] }' classes.tsv |
  LC_ALL=C sort -t$'\t' -k2,2nr -k1,1 | head -n 3 > top3.tsv
