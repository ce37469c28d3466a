#!/bin/bash
./publish || true
sed -i 's/^format: htlm/format: html/' settings.yaml
./publish || true
mkdir -p public
./publish || true
touch CHANGELOG.md
./publish
