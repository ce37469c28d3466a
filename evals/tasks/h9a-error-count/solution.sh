#!/bin/bash
awk '$1 == "2024-03-14" && $3 == "ERROR"' logs/app.log | wc -l > errors_0314.txt
