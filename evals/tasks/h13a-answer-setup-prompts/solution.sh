#!/usr/bin/env bash
printf 'ledger\n5050\nprod\n' | ./setup.sh
