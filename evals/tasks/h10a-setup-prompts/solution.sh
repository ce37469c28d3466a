#!/usr/bin/env bash
printf 'inventory-api\n9090\nn\n' | ./configure.sh
