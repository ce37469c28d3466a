#!/usr/bin/env bash
find project -type f -name '*.bak' -delete
