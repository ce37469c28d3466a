#!/bin/bash
sed -i '/^  replica:/,/^  [a-z]/ s/^    port: 5432$/    port: 5433/' config.yaml
