#!/usr/bin/env bash
tar -czf site-backup.tar.gz site
