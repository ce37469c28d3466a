#!/bin/bash
printf '%s\n' "Priya Raman" "2025-03-14" "Tom Okafor" | ./swap.py
