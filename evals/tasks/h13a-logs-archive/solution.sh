#!/usr/bin/env bash
tar -czf logs.tar.gz logs/*.log
