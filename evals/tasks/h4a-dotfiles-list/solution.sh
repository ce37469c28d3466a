#!/usr/bin/env bash
(cd home && find . -type f -name '.*' | sed 's#^\./##' | sort) > dotfiles.txt
# find -type f -name '.*' from inside home/ matches only files whose own name starts with a dot, at any depth.
