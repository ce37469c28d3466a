#!/usr/bin/env bash
awk '$9 == 404' access.log | wc -l > notfound.txt
