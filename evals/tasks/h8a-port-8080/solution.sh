#!/usr/bin/env bash
grep -lE '^[[:space:]]*port[[:space:]]*=[[:space:]]*8080[[:space:]]*$' services/*.conf | xargs -n1 basename | sed 's/\.conf$//'
