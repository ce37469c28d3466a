#!/usr/bin/env bash
sed -i -e "s/'dark'/\"dark\"/" \
       -e 's/"max(disk_used_pct)"}$/"max(disk_used_pct)"},/' \
       -e 's/"sum(rate(net_bytes\[5m\]))"},$/"sum(rate(net_bytes[5m]))"}/' \
       -e 's/"timezone": "UTC",$/"timezone": "UTC"/' dashboard.json
python3 -m json.tool dashboard.json > /dev/null
# sed fixes the four syntax errors in place (quotes, missing comma, two trailing commas); json.tool confirms it parses.
