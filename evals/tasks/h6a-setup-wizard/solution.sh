#!/usr/bin/env bash
printf 'inventory-api\n9090\npostgres\n' | ./init_project.sh
