#!/bin/bash
sed -i 's/^better_maps$/better-maps/' modlist.txt
mkdir -p game/addons
./install_mods.py
