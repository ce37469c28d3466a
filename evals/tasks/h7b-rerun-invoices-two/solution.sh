#!/bin/bash
sed -i 's/^currency = EURO$/currency = EUR/' billing.conf
mkdir -p invoices/2025-03
python3 make_invoices.py
