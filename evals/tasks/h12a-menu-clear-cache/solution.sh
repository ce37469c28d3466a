#!/usr/bin/env bash
printf '3\n' | ./maint.sh
