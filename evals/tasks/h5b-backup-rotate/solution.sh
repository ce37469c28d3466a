#!/bin/bash
sed -i 's/^keep=seven$/keep=7/' rotate.conf
mkdir -p old
./rotate.sh
