#!/bin/bash
awk '/^\[/ { sec = $0 } sec == "[database]" && /^port[ \t]*=/ { $0 = "port = 6543" } { print }' app.ini > app.ini.new &&
  mv app.ini.new app.ini
