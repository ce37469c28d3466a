#!/bin/bash
printf '3\nmpatel\n4\n' | ./accounts.sh
