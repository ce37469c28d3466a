#!/usr/bin/env bash
find uploads -type f -size 0 -delete
