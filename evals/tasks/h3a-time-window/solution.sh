#!/usr/bin/env bash
awk '$2 == "ERROR" && $1 >= "2024-05-12T14:00:00Z" && $1 <= "2024-05-12T14:30:00Z"' server.log | wc -l
