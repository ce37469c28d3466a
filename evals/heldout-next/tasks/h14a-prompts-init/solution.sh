#!/bin/bash
printf 'inventory-api\n9090\nn\n' | ./init.sh
