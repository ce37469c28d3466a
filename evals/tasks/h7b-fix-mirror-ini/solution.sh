#!/bin/bash
sed -i -e 's/^exclude = \*\.xmp$/exclude = *.xmp, *.bak, Thumbs.db/' -e '/^exclude = \*\.bak, Thumbs\.db$/d' mirror.ini
python3 sync_mirror.py
