#!/usr/bin/env bash
awk '$0 == "==== END FAILED TESTS ====" { inb = 0 } inb { print } $0 == "==== BEGIN FAILED TESTS ====" { inb = 1 }' ci-output.txt > failed.txt
