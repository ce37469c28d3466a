#!/bin/bash
tar -czf logs-backup.tar.gz logs/*.log
