#!/usr/bin/env bash
grep -oiw 'data' essay.txt | wc -l
