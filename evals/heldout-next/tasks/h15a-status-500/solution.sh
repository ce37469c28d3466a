#!/usr/bin/env bash
awk '$9 == 500' web.log | wc -l
