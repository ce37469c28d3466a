#!/bin/bash
printf 'harbor\n9300\nn\n' | ./init-project.sh
