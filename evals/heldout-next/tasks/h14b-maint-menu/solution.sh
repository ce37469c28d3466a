#!/usr/bin/env bash
printf '3\ny\n4\n' | ./maint.sh
