#!/usr/bin/env bash
sed -i 's/total += row\["amount"\]/total += float(row["amount"])/' total.py
