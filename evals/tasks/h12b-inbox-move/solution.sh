#!/usr/bin/env bash
mkdir -p archive/2024-06
shopt -s dotglob
mv inbox/* archive/2024-06/
