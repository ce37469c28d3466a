#!/usr/bin/env bash
tar -czf reports.tar.gz reports
chmod 600 reports.tar.gz
