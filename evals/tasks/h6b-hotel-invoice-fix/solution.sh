#!/bin/bash
sed -i -e 's/rate = int(row\["rate"\])/rate = float(row["rate"])/' \
       -e 's/CLEANING_PER_NIGHT\[row\["room_type"\]\]/CLEANING_PER_NIGHT[row["room_type"].strip().lower()]/' invoice.py
python3 invoice.py
