#!/bin/bash
find site -type f | wc -l
