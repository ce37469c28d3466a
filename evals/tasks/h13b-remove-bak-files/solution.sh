#!/bin/bash
find site -type f -name '*.bak' -delete
