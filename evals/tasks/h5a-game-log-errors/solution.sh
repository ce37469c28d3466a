#!/usr/bin/env bash
grep -c '^[0-9-]* [0-9:]* \[ERROR\]' game.log
