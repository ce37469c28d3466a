#!/bin/bash
sed -i 's/^target = celsius$/target = C/' units.conf
python3 convert_temps.py
