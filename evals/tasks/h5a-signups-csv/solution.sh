#!/usr/bin/env bash
{
  echo 'user,date'
  jq -r 'select(.type == "signup") | "\(.user),\(.ts[0:10])"' events.jsonl
} > signups.csv
