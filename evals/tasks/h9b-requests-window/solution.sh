#!/bin/bash
awk '$2 >= "14:00:00" && $2 <= "14:30:00"' requests.log | wc -l > window_count.txt
