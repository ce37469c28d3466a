#!/usr/bin/env bash
find reports -maxdepth 1 -type f -name '*2024-[01][0-9]-[0-3][0-9]*' -print0 | tar -czf reports-2024.tar.gz --null -T -
