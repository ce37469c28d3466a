#!/bin/bash
until ./release.sh; do
  err=$(./release.sh 2>&1 >/dev/null)
  case "$err" in
    *"no 'channel' key"*) echo "channel=beta" >> release.conf ;;
    *"scripts/sign.sh is not executable"*) chmod +x scripts/sign.sh ;;
    *"dist/ does not exist"*) mkdir dist ;;
    *) echo "cannot fix: $err" >&2; exit 1 ;;
  esac
done
