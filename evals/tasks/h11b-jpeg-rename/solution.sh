#!/usr/bin/env bash
for f in "holiday pics"/*.jpeg; do mv -- "$f" "${f%.jpeg}.jpg"; done
