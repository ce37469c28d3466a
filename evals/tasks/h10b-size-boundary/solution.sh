#!/bin/bash
mkdir -p large
find uploads -maxdepth 1 -type f -size +2047c -exec mv -t large {} +
