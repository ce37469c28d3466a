#!/usr/bin/env bash
find photos -type f -iname '*.jpg' | wc -l
