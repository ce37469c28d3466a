#!/bin/bash
{ echo 'name,email'; jq -r '.[] | [.name, .email] | @csv' users.json; } > users.csv
