#!/usr/bin/env bash
sed -i '/^\[server\]/,/^\[/ s/^port = .*/port = 8443/' settings.ini
