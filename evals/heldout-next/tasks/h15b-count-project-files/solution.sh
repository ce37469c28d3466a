#!/usr/bin/env bash
find project -type f | wc -l
