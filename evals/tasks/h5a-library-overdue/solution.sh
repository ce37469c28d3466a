#!/usr/bin/env bash
jq '[.[] | select(.returned == null and .due < "2024-05-10")] | length' loans.json
