#!/bin/bash
mkdir -p out/rota
python3 build_rota.py
