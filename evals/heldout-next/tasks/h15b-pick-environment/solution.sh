#!/usr/bin/env bash
echo 2 | ./switch-env.sh
