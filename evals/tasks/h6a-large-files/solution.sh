#!/usr/bin/env bash
cd assets && find . -type f -size +10240c -printf '%P\n' | LC_ALL=C sort > ../large.txt
