#!/usr/bin/env bash
sed -i '/^\[server\]/,/^\[/ s/^port = 8080$/port = 8081/' config/app.ini
