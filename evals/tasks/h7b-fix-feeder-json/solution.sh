#!/bin/bash
sed -i -e 's/"pellets"},$/"pellets"}/' -e 's/: True,/: true,/' feeder.json
sed -i -e '5s/"pellets"}$/"pellets"},/' feeder.json
python3 feeder.py
