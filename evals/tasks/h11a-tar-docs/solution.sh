#!/bin/bash
tar czf docs.tar.gz docs
