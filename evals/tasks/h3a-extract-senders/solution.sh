#!/usr/bin/env bash
grep -o 'from=<[^>]*>' mail.log | sed -e 's/^from=<//' -e 's/>$//' | grep -v '^$' | LC_ALL=C sort -u > senders.txt
