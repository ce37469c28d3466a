#!/bin/bash
awk -F, 'NR > 1 && $3 == "Norway" && substr($2, 4, 7) == "03/2025"' shipments.csv | wc -l
