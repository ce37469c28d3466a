#!/bin/bash
printf 'weather-bot\nPriya Nair\n2\n' | ./init.sh
