#!/bin/bash
chmod +x tools/*.sh
