#!/bin/bash
jq -r '.[] | select(.active) | .email' users.json > active_emails.txt
