#!/usr/bin/env bash
sed -i 's/"\$SCR"/"$SRC"/' backup.sh
./backup.sh
