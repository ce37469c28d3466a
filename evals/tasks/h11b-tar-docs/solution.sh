#!/usr/bin/env bash
tar -czf docs.tar.gz docs
