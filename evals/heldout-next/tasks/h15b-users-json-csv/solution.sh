#!/usr/bin/env bash
{ echo 'name,email,role'; jq -r '.[] | [.name, .email, .role] | @csv' users.json | tr -d '"'; } > users.csv
