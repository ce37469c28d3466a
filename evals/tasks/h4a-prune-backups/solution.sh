#!/usr/bin/env bash
cd backups || exit 1
ls db-??-??-????.sql.gz |
  sed -E 's/^db-([0-9]{2})-([0-9]{2})-([0-9]{4})\.sql\.gz$/\3\2\1 &/' |
  sort -r | tail -n +4 | cut -d' ' -f2 |
  while IFS= read -r f; do rm -- "$f"; done
# Prefixes each name with a YYYYMMDD key rebuilt from DD-MM-YYYY, sorts newest first, and deletes everything after the first three.
