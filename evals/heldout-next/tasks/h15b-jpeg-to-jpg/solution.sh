#!/usr/bin/env bash
for f in pics/*.jpeg; do mv -- "$f" "${f%.jpeg}.jpg"; done
