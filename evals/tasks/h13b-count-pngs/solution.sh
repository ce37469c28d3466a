#!/bin/bash
find assets -type f -name '*.png' | wc -l
