#!/bin/bash
cd recordings
for f in *.wav; do
  new="${f// /_}"
  [ "$f" = "$new" ] || mv -- "$f" "$new"
done
