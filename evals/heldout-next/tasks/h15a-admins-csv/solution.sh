#!/usr/bin/env bash
{ echo "name,email"; jq -r '.[] | select(.role == "admin") | "\(.name),\(.email)"' users.json; } > admins.csv
