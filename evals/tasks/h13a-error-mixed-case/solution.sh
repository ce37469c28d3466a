#!/usr/bin/env bash
awk 'tolower($3) == "error"' server.log | wc -l
