#!/bin/bash
sed -i -e 's/row\["call"\]/row["Call"]/' \
  -e 's/sorted(counts)/sorted(counts, key=lambda b: int(b.rstrip("m")), reverse=True)/' \
  -e 's/sum(counts))/sum(counts.values()))/' bandcount.py
