#!/usr/bin/env bash
sed -i 's/^replicas: 2$/replicas: 4/' deploy.yaml
