#!/usr/bin/env bash
./build.sh || true
cp build.yml.example build.yml
./build.sh || true
sed -i 's/^target: prod$/target: production/' build.yml
./build.sh || true
mkdir -p public
./build.sh
