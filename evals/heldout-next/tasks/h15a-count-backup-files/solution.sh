#!/usr/bin/env bash
find backup -type f | wc -l
