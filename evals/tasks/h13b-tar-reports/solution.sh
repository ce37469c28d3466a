#!/bin/bash
tar -czf reports-2024.tar.gz reports
