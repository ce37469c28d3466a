#!/bin/bash
grep -cE '^[0-9-]+ 14:[0-9:]+ ERROR ' app.log > errors_14h.txt
