#!/bin/bash
find reports -type f -name '*.pdf' | wc -l
