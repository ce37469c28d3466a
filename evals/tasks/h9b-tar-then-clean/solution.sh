#!/bin/bash
tar -czf old-logs.tar.gz logs/*.log && rm -f logs/*.log
