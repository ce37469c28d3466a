#!/usr/bin/env bash
find build -type f -name '*.tmp' -delete
