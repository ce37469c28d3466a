#!/usr/bin/env bash
sed -i 's|^for f in "\$SRC"/\*\.conf do$|for f in "$SRC"/*.conf; do|' backup.sh
./backup.sh
