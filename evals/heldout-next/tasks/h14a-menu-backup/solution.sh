#!/bin/bash
printf '2\npre-migration\n4\n' | ./dbtool.sh
