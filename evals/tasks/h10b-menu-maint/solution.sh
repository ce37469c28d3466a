#!/bin/bash
printf '2\n3\ny\n4\n' | ./maint
