#!/bin/bash
jq -r '.items[] | select(.qty == 0) | .name' inventory.json > restock.txt
