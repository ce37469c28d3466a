#!/bin/bash
sed -i '/^database:/,/^[^ ]/ s/^  port: 5432$/  port: 6543/' settings.yaml
