#!/usr/bin/env bash
cp -a template/. newproj/
