#!/bin/bash
tar -czf reports.tar.gz reports
