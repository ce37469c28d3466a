#!/bin/bash
chmod u+x scripts/*.sh
