#!/bin/bash
printf '2\n2023\n4\n' | ./reports_menu.sh
