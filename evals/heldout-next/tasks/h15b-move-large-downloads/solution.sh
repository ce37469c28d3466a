#!/usr/bin/env bash
mkdir -p large
find downloads -maxdepth 1 -type f -size +2048c -exec mv -t large/ {} +
