#!/bin/bash
mkdir -p uploads/large
find uploads -maxdepth 1 -type f -size +2047c -exec mv {} uploads/large/ \;
