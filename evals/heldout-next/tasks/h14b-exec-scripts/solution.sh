#!/usr/bin/env bash
chmod +x tools/*.sh
