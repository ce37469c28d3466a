#!/bin/bash
echo n | ./cleanup_jobs.sh
