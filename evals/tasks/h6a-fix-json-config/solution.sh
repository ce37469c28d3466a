#!/usr/bin/env bash
set -e
cat > settings.json <<'JSON'
{
  "title": "Chemistry midterm - passed",
  "scores_file": "scores.csv",
  "min_score": 70,
  "output": "passed.txt"
}
JSON
python3 report.py
