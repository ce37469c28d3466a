#!/bin/bash
printf '2\ny\n4\n' | ./maint.sh
