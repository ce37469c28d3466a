#!/bin/bash
printf 'harbour-cams\n8091\n' | python3 new_site.py
