#!/bin/bash
find project -type f | wc -l
