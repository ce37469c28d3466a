#!/usr/bin/env bash
printf '3\n4\n' | ./maint.sh
