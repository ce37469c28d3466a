#!/bin/bash
find project -type f -name '*.py' | wc -l
