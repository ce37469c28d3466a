#!/bin/bash
find tools -name '*.sh' -exec chmod +x {} +
