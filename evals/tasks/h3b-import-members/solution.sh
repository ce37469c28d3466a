#!/bin/bash
printf '%s\n' "semicolon" "n" "id, name, city, joined" | ./import.py
