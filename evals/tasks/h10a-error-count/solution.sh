#!/usr/bin/env bash
grep -c '\[ERROR\]' app.log
