#!/usr/bin/env bash
printf '2\n4\n' | ./maint.sh
