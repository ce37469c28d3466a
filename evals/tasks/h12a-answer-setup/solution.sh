#!/usr/bin/env bash
printf 'ledger-api\n9090\nn\n' | ./setup.sh
