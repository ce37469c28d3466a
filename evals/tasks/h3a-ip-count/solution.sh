#!/usr/bin/env bash
awk '$1 == "10.0.0.1"' access.log | wc -l
