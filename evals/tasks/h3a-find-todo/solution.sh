#!/usr/bin/env bash
grep -rlF 'TODO(alice)' src | LC_ALL=C sort > todo-alice.txt
