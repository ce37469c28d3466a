#!/usr/bin/env bash
sed -i 's/^max_players=.*/max_players=64/' server.conf
