#!/usr/bin/env bash
chmod a+x tools/*.sh
