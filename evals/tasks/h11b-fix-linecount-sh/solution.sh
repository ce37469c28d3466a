#!/usr/bin/env bash
sed -i 's/^if \[ \$# -ne 1 \] then$/if [ $# -ne 1 ]; then/' count_lines.sh
