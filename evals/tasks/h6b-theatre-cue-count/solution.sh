#!/bin/bash
grep -oiw cue notes.txt | wc -l
