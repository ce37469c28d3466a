#!/bin/bash
printf 'invoice-api\n9090\nn\n' | ./init-project.sh
