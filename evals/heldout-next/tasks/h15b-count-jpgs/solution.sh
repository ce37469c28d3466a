#!/usr/bin/env bash
find photos -type f -name '*.jpg' | wc -l
