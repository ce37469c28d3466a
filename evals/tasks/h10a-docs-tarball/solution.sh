#!/usr/bin/env bash
tar -czf docs-backup.tar.gz docs
