#!/usr/bin/env bash
set -e
sed -i 's/^LOG_LEVEL=.*/LOG_LEVEL=debug/' .env
