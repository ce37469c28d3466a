#!/bin/bash
awk '/^\[/ { sec = $0 } sec == "[spectrometer]" && /^integration_ms[ \t]*=/ { sub(/=.*/, "= 250") } { print }' instrument.ini > instrument.ini.new && mv instrument.ini.new instrument.ini
