#!/usr/bin/env bash
mkdir -p downloads/big
find downloads -maxdepth 1 -type f -size +2000c -exec mv -t downloads/big {} +
