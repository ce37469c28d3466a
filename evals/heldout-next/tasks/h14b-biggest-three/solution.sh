#!/usr/bin/env bash
ls -S media | head -n 3 > top3.txt
