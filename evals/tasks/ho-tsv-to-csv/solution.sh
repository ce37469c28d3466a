#!/usr/bin/env bash
# A known-good way to do the task, for the harness's own tests.
set -euo pipefail
python3 -c 'import csv, sys; csv.writer(sys.stdout, lineterminator="\n").writerows(csv.reader(sys.stdin, delimiter="\t"))' \
  < scores.tsv > scores.csv
