#!/usr/bin/env bash
mkdir -p big
find media -maxdepth 1 -type f -size +1023c -exec cp -p {} big/ \;
