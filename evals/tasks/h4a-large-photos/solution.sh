#!/usr/bin/env bash
find photos -type f -size +2048c | wc -l
# Counts regular files whose size is strictly greater than 2048 bytes with find -size +2048c.
