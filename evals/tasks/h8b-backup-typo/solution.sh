#!/usr/bin/env bash
set -e
sed -i 's/"\$SRC_DIR"/"$SOURCE_DIR"/' backup.sh
./backup.sh
