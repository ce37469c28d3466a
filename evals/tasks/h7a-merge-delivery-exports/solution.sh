#!/usr/bin/env bash
{ echo "delivery_id,depot,date,parcels"; for f in exports/*.csv; do tail -n +2 -- "$f"; done; } > all-deliveries.csv
