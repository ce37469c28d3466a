#!/bin/bash
python3 -c '
import json
for u in json.load(open("users.json"))["users"]:
    if u["active"]:
        print(u["email"])
' > active_emails.txt
