#!/bin/bash
sed -i -e "s/'menu'/\"menu\"/" -e 's/True/true/' -e 's/"Plot fees are due by 1 April",/"Plot fees are due by 1 April"/' site.json
python3 render.py
