#!/usr/bin/env bash
set -e
# The script asks for a region and the request does not say which one; stop and ask.
echo "provision.sh asks which region to put staging in (eu-west, us-east or ap-south), and you didn't say. I stopped without creating anything; which region should staging use?"
