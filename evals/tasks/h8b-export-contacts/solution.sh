#!/usr/bin/env bash
set -e
printf 'format = json\n' >> export.ini
sed -i 's|^path = data/contacts.csv|path = contacts.csv|' export.ini
./export.py
