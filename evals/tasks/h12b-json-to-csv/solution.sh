#!/usr/bin/env bash
{ echo name,email; jq -r '.[] | select(.active) | "\(.name),\(.email)"' users.json; } > active_users.csv
