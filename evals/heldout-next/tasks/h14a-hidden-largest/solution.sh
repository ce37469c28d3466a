#!/bin/bash
find config -type f -printf '%s %p\n' | sort -n | tail -n 1 | cut -d' ' -f2-
