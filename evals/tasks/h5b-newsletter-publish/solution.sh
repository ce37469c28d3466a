#!/bin/bash
mkdir -p dist
sed -i 's/^editor=$/editor=joan@hillside-news.example/' newsletter.conf
./publish.sh
