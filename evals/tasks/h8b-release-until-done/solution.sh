#!/usr/bin/env bash
set -e
echo 2.4.0 > VERSION
mkdir -p dist
./release.sh
