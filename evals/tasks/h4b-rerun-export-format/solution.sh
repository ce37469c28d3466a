#!/usr/bin/env bash
./export.py || { sed -i 's/^format = cvs$/format = csv/' export.ini && ./export.py; }
# The first run names the bad value (cvs, did you mean csv); correct it in export.ini and rerun.
