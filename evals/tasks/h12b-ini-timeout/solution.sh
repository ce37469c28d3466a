#!/usr/bin/env bash
sed -i 's/^timeout = 30$/timeout = 60/' settings.ini
