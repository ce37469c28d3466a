#!/usr/bin/env bash
printf 'weather-station\nDana Ruiz\nApache-2.0\n' | ./new_project.sh
