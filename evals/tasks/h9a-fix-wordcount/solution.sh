#!/bin/bash
sed -i -e 's/^if \[ ! -f "\$file" \] then$/if [ ! -f "$file" ]; then/' -e 's/"\$fiel"/"$file"/' count_words.sh
