#!/usr/bin/env bash
sed -i '/^\[server\]/,/^\[/ s/^port = .*/port = 9090/' app.ini
