#!/usr/bin/env bash
mkdir -p large
find uploads -maxdepth 1 -type f -size +4095c -exec mv -- {} large/ \;
