#!/usr/bin/env bash
find src -type f -name '*.py' -exec cat {} + | grep -c TODO
# Concatenates only files ending in .py (find -exec handles spaces) and counts lines containing TODO case-sensitively.
