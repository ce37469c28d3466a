#!/usr/bin/env bash
set -e
printf 'Grace Hopper\n37\n2\n' | ./register.py
