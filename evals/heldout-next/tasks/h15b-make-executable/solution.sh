#!/usr/bin/env bash
chmod +x scripts/*.sh
