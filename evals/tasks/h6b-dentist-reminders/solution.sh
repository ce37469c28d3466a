#!/bin/bash
./send_reminders
sed -i 's/^days_ahead = seven$/days_ahead = 7/' clinic.conf
./send_reminders
printf '2024-12-24\n2024-12-25\n2024-12-26\n2025-01-01\n' > holidays.txt
./send_reminders
mkdir -p outbox
./send_reminders
