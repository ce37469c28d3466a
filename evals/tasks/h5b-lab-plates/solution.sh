#!/bin/bash
gunzip -c incoming/plate2.csv.gz > data/plate2.csv
gunzip -c incoming/plate3.csv.gz > data/plate3.csv
mkdir -p results
python3 analyze.py
