#!/bin/bash
find data -maxdepth 1 -type f -size +2000c -printf '%f\n' > big_files.txt
