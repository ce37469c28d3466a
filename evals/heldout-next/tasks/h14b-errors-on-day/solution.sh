#!/usr/bin/env bash
grep -c '^2024-03-12 [0-9:]* ERROR ' app.log > errors_mar12.txt
