#!/usr/bin/env bash
python3 -c '
import json
from decimal import Decimal
d = json.load(open("inventory.json"))
t = sum(i["qty"] * Decimal(str(i["unit_price"])) for w in d["warehouses"] for b in w["bins"] for i in b["items"])
print(f"${t:,.2f}")
'
