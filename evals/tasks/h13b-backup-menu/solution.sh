#!/bin/bash
printf '2\nvault\n' | ./backup-tool
