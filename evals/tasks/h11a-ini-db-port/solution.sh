#!/bin/bash
sed -i 's/^port = 5432$/port = 5433/' app.ini
