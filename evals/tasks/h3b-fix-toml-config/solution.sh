#!/bin/bash
sed -i -e 's/^log_level = info$/log_level = "info"/' \
  -e 's|"https://reports.example.com" "https://admin.example.com"|"https://reports.example.com", "https://admin.example.com"|' app.toml
./start.py
