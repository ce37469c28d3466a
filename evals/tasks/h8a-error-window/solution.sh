#!/usr/bin/env bash
awk '$1 == "2024-03-05" && $2 >= "14:00:00" && $2 <= "14:30:00" && $3 == "ERROR"' app.log > errors_1400.log
