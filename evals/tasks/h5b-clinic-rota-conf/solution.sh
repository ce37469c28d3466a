#!/bin/bash
sed -i -e 's/^start=8:30$/start=08:30/' -e 's/^shfit_hours=/shift_hours=/' rota.conf
./rota.sh
