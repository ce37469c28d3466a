#!/usr/bin/env bash
chmod +x bin/*.sh
