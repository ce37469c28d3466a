#!/usr/bin/env bash
mkdir -p to-accountant
find invoices -type f -iname '*.pdf' -exec cp -- {} to-accountant/ \;
find to-accountant -type f | wc -l
