#!/bin/bash
awk '/^## / { on = ($0 == "## Budget"); next } on' minutes.md | sed -e '/./,$!d' | tac | sed -e '/./,$!d' | tac > budget.txt
