#!/usr/bin/env bash
set -e
tar -czf site-backup.tar.gz --exclude=node_modules --exclude='*.tmp' site
tar -tzf site-backup.tar.gz | grep -vc '/$' > file-count.txt
