#!/usr/bin/env bash
awk '/^\[/ { sec = $0 } sec == "[server]" && /^port[[:space:]]*=/ { $0 = "port = 8081" } { print }' config/app.ini > config/app.ini.new &&
  mv config/app.ini.new config/app.ini
