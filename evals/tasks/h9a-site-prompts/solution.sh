#!/bin/bash
printf 'garden-club\n8443\ny\n' | ./configure_site.sh
