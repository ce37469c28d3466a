#!/bin/bash
sed 's/^TARGET=.*/TARGET=staging/' deploy.conf.example > deploy.conf
mkdir -p releases
./deploy.sh
