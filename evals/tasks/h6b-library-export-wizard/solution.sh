#!/bin/bash
printf 'central\n2023\njson\ncentral_2023.json\n' | ./export_stats.sh
