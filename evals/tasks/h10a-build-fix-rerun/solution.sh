#!/usr/bin/env bash
sed -i 's/^compression: fast/compression: gzip/' release.conf
mkdir -p dist
echo "MIT License" > LICENSE
./build.sh
