#!/usr/bin/env bash
printf 'inventory\n9090\ny\n' | ./new_service.sh
