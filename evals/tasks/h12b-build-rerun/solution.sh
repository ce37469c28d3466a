#!/usr/bin/env bash
sed -i 's/^jobs: four$/jobs: 4/' build.conf
mkdir -p out
./build.sh
