#!/usr/bin/env bash
find render-cache -type f -name '*.tmp' -delete
