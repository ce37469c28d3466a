#!/bin/bash
best=$(ls releases | grep -E '^fw-[0-9.]+\.bin$' | sed 's/^fw-//; s/\.bin$//' | sort -V | tail -n 1)
cp "releases/fw-$best.bin" flash/current.bin
echo "$best"
