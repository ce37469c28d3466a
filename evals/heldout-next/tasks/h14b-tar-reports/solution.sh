#!/usr/bin/env bash
tar -czf reports.tar.gz reports
