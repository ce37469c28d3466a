#!/bin/bash
printf '%s\n' "Billing API v2" "" "y" | ./setup.sh
