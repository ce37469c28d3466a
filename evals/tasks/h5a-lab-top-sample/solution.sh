#!/usr/bin/env bash
jq -rs 'map(select(.conc_mg_l != null)) | max_by(.conc_mg_l) | .id' samples.jsonl
