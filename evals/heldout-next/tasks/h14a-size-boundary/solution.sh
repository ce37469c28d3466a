#!/bin/bash
mkdir -p downloads/large
find downloads -maxdepth 1 -type f -size +1000c -exec mv {} downloads/large/ \;
