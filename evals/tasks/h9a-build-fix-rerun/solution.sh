#!/bin/bash
./build.sh || true
sed 's/^mode = .*/mode = release/' config/build.ini.example > config/build.ini
mkdir -p dist
./build.sh
