#!/bin/bash
printf 'Priya Natarajan\nGEO210\nn\n' | ./enroll.sh
