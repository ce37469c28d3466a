#!/bin/bash
find assets -type f -printf '%s %f\n' | sort -n | tail -n 1 | cut -d' ' -f2- > biggest.txt
