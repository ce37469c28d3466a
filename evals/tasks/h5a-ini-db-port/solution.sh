#!/usr/bin/env bash
python3 -c '
import configparser
c = configparser.ConfigParser()
c.read("config.ini")
print(c["database"]["port"])
'
