#!/bin/bash
awk '$3=="ERROR"' app.log | wc -l > error_count.txt
