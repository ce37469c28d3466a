#!/usr/bin/env bash
{ echo "sku,name,qty"; jq -r '.items[] | [.sku, .name, .qty] | @csv' inventory.json; } > inventory.csv
