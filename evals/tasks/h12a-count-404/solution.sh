#!/usr/bin/env bash
awk '$9 == 404' web.log | wc -l
