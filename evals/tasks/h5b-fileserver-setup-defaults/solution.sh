#!/bin/bash
printf '\nfiles.internal\ny\nops@acme-print.example\n' | python3 setup.py
