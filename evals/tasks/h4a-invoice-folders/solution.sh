#!/usr/bin/env bash
for f in invoices/inv-*.pdf; do
  b="$(basename "$f")"
  if [[ "$b" =~ ^inv-([0-9]{4})-([0-9]{2})-[0-9]{2}-.+\.pdf$ ]]; then
    mkdir -p "invoices/${BASH_REMATCH[1]}/${BASH_REMATCH[2]}"
    mv -- "$f" "invoices/${BASH_REMATCH[1]}/${BASH_REMATCH[2]}/"
  fi
done
# Matches each name against the full inv-YYYY-MM-DD-client.pdf pattern with a bash regex and moves matches into YYYY/MM.
