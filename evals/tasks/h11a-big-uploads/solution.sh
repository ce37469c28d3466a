#!/bin/bash
find uploads -type f -size +2000c -printf '%f\n' > big_files.txt
