#!/bin/bash
printf 'n\n' | ./sync_music.sh
