#!/bin/bash
printf '%s\n' "Bridie O'Rourke" | ./new_order.sh
