#!/bin/bash
jq -r '.[] | select(.active) | .name' users.json > active.txt
