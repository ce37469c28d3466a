#!/usr/bin/env bash
./publish || true
cp site.conf.example site.conf
./publish || true
sed -i 's/^env=.*/env=production/' site.conf
./publish || true
mkdir -p public
./publish
