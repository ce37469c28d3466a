#!/usr/bin/env bash
set -e
chmod +x wordcount.sh
sed -i '1s|.*|#!/usr/bin/env bash|' wordcount.sh
./wordcount.sh
