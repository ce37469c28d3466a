#!/usr/bin/env bash
jq -c 'select(.id)' webhook-deliveries.jsonl | awk '{ match($0, /"id":"[^"]*"/); id = substr($0, RSTART, RLENGTH) } !seen[id]++' > events_unique.jsonl
