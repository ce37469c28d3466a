#!/usr/bin/env bash
printf '%s\n' 'Grace Hopper' compilers 2024-09-02 | ./new_profile.sh
