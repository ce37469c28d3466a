#!/usr/bin/env bash
# A known-good way to do the task, for the harness's own tests.
set -euo pipefail
tar xzf bundle.tar.gz
tar tzf bundle.tar.gz | grep -v '/$' | grep -c '\.md$' > md_count.txt
