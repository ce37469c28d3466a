#!/usr/bin/env bash
find assets -type f -size +10240c | LC_ALL=C sort > big_files.txt
