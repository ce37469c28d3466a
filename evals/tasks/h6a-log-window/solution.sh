#!/usr/bin/env bash
n=$(awk '$4 ~ /^\[12\/Mar\/2024:/ && $9 == 500 { split($4, a, ":"); t = a[2] a[3] a[4]; if (t >= "140000" && t <= "143000") n++ } END { print n + 0 }' access.log)
echo "$n requests got a 500 in that window."
