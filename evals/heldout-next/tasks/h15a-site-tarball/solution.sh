#!/usr/bin/env bash
tar -czf website-backup.tar.gz website
