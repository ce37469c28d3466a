#!/bin/bash
sed -i '/^\[server\]/,/^\[/ s/^port = .*/port = 8443/' config.ini
