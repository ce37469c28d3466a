#!/bin/bash
awk '$3 == "ERROR"' server.log | wc -l
