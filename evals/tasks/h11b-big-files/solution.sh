#!/usr/bin/env bash
find uploads -type f -size +1500c > big_files.txt
