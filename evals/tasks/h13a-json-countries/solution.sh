#!/usr/bin/env bash
jq -r '.[].country' users.json | sort -u > countries.txt
