#!/usr/bin/env bash
{ echo "sku,name,qty"; jq -r 'map(select(.qty < 5)) | sort_by(.sku) | .[] | [.sku, .name, .qty] | join(",")' bike-shop-inventory.json; } > low_stock.csv
