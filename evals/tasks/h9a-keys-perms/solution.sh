#!/bin/bash
chmod 600 keys/*
