#!/bin/bash
sed -i 's/^threads = eight$/threads = 8/' build.conf
mkdir -p dist
./build.sh
