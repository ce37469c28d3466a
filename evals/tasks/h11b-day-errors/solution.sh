#!/usr/bin/env bash
grep '^2024-03-02 [0-9:]* ERROR ' app.log > errors_0302.txt
