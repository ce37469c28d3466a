#!/usr/bin/env bash
awk 'index($0, "## [2.1.0]") == 1 { on = 1; next } /^## / { on = 0 } on' CHANGELOG.md > notes-2.1.0.md
