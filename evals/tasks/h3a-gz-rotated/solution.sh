#!/usr/bin/env bash
cd logs
{ cat backup.log backup.log.1; zcat backup.log.2.gz backup.log.3.gz; } | grep -c 'No space left on device'
