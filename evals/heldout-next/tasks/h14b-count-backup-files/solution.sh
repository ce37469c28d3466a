#!/usr/bin/env bash
echo "home-backup holds $(find home-backup -type f | wc -l) files."
