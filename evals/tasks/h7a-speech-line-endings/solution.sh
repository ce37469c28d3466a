#!/usr/bin/env bash
sed -i -e 's/\r$//' -e 's/[[:blank:]]*$//' speech.txt
