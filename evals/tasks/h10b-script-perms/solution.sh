#!/bin/bash
find tools -type f -name '*.sh' -exec chmod +x {} +
