#!/bin/bash
echo y | ./purge_lapsed.sh
