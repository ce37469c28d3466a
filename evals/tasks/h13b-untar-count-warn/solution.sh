#!/bin/bash
mkdir -p march
tar -xzf logs-march.tar.gz -C march
cat march/*.log | awk '$2 == "WARN"' | wc -l
