#!/usr/bin/env bash
printf 'tide-tables\nApache-2.0\n3.12\n' | ./new-project.sh
