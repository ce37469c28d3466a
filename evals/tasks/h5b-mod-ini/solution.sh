#!/bin/bash
sed -i -e 's/^speed 1.5$/speed = 1.5/' -e 's/^\[wildflowers$/[wildflowers]/' mods.ini
python3 modload.py
