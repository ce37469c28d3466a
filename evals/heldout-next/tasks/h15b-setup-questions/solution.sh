#!/usr/bin/env bash
printf 'harbor\n9090\nn\n' | ./setup.sh
