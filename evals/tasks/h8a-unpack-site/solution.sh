#!/usr/bin/env bash
mkdir -p public
tar -xzf site-backup.tar.gz -C public --strip-components=1
