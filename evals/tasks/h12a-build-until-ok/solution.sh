#!/usr/bin/env bash
sed -i -e 's/^target = .*/target = production/' -e 's/^jobs = .*/jobs = 4/' build.conf
mkdir -p out
./build.sh
