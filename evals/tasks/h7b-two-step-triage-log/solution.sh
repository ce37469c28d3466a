#!/bin/bash
best=$(for f in logs/*.log; do printf '%s\t%s\n' "$(awk '$2 == "ERROR"' "$f" | wc -l)" "$f"; done | sort -t$'\t' -k1,1nr | head -n 1 | cut -f2)
mkdir -p triage
mv "$best" triage/
echo "$best"
