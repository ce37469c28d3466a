#!/usr/bin/env bash
tail -n +2 customers.csv | grep -c .
