#!/usr/bin/env bash
./deploy.sh || true
sed -i 's/^workers=eight$/workers=8/' settings.conf
./deploy.sh || true
mkdir -p releases
./deploy.sh
