#!/usr/bin/env bash
set -e
tok=$(./mktoken.py --user deploy | tail -n 1 | tr -d ' ')
sed -i "s/^API_TOKEN=REPLACE_ME\$/API_TOKEN=$tok/" settings.env
