#!/bin/bash
{
  echo "hour,errors"
  for h in $(seq 10 23); do
    n=$(grep -cE "^[0-9-]{10}T${h}:[0-9:]{5} level=ERROR " app.log)
    echo "$h,$n"
  done
} > errors_by_hour.csv
