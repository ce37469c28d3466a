#!/usr/bin/env bash
awk '$9 >= 500 && $9 <= 599' bistro-access.log | wc -l
