#!/usr/bin/env bash
mkdir -p uploads/large
find uploads -maxdepth 1 -type f -size +1000c -exec mv -- {} uploads/large/ \;
