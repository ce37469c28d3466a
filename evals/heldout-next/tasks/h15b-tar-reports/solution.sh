#!/usr/bin/env bash
tar -czf reports-backup.tar.gz reports
