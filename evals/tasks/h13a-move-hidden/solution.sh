#!/usr/bin/env bash
mkdir -p archive
shopt -s dotglob
mv inbox/* archive/
