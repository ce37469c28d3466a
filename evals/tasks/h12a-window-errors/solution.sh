#!/usr/bin/env bash
awk '$2 >= "09:00:00" && $2 <= "09:30:00"' app.log > window.log
grep -c ' ERROR ' window.log
