#!/usr/bin/env bash
for f in desk/*; do
  [ -f "$f" ] || continue
  b="$(basename "$f")"
  case "$b" in *.*) ;; *) continue ;; esac
  ext="${b##*.}"; ext="${ext,,}"
  mkdir -p "desk/$ext"
  mv -- "$f" "desk/$ext/"
done
# Takes the text after the last dot with ${name##*.}, lower-cases it with ${ext,,}, and moves the file there; dotless names are skipped.
