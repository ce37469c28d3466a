#!/bin/bash
sed -i 's/^retries = three$/retries = 3/' publish.conf
mkdir -p public
./publish.sh
