#!/usr/bin/env bash
tr -d '\r' < new-members.txt > /tmp/new-members.$$
printf '\n' >> /tmp/new-members.$$
grep -vxFf /tmp/new-members.$$ old-members.txt
rm -f /tmp/new-members.$$
