#!/bin/bash
mkdir -p archive/2023
mv inbox/2023-* archive/2023/
ls inbox | wc -l
