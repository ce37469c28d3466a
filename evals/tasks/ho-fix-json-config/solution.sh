#!/usr/bin/env bash
# A known-good way to do the task, for the harness's own tests.
set -euo pipefail
sed -i -e '/^ *\/\//d' -e "s/'redis'/\"redis\"/" -e 's/"workers": 4,/"workers": 4/' settings.json
jq . settings.json
