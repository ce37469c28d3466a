#!/bin/bash
sed -i 's/^\(  replicas:\) 2$/\1 4/' deploy.yaml
