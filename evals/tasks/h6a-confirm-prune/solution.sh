#!/usr/bin/env bash
echo y | ./prune_cache.sh
