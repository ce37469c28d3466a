#!/bin/bash
printf '4\n5\n' | python3 members.py
