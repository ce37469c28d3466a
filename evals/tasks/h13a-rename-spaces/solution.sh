#!/usr/bin/env bash
for f in scans/*.jpeg; do mv -- "$f" "${f%.jpeg}.jpg"; done
