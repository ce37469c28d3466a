#!/bin/bash
awk '/^\[/ { sec = $0 } sec == "[database]" && /^port[[:space:]]*=/ { sub(/=.*/, "= 5433") } { print }' app.ini > app.ini.new && mv app.ini.new app.ini
