#!/bin/bash
find gallery -maxdepth 1 -type f \( -iname '*.jpg' -o -iname '*.png' \) | wc -l
