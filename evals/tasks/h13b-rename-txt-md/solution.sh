#!/bin/bash
for f in notes/*.txt; do
  mv -- "$f" "${f%.txt}.md"
done
