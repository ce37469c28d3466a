#!/usr/bin/env bash
cd shoot || exit 1
for f in *; do
  case "${f,,}" in *.jpg) ;; *) continue ;; esac
  n="${f// /_}"
  [ "$f" = "$n" ] || mv -- "$f" "$n"
done
