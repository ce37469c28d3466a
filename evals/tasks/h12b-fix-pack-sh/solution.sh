#!/usr/bin/env bash
sed -i 's/^if \[ ! -d "\$dir" \]$/if [ ! -d "$dir" ]; then/' pack.sh
chmod +x pack.sh
./pack.sh
