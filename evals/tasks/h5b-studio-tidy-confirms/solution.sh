#!/bin/bash
printf 'y\nn\ny\n' | ./tidy.sh
