#!/usr/bin/env bash
set -e
sed -i 's/^RETRIES = 9$/RETRIES = 3/' deploy.conf
echo 'ENVIRONMENT = staging' >> deploy.conf
mkdir -p releases
chmod 600 credentials.key
./deploy.sh
