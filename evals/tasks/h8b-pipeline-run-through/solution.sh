#!/usr/bin/env bash
set -e
chmod +x steps/20-clean.sh
sed -i 's/^REPORT_TITLE=$/REPORT_TITLE="Weekly Sales"/' pipeline.conf
./run_pipeline.sh
