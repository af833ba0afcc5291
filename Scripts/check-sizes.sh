#!/usr/bin/env bash
# Fails when a Swift file in Sources is over 400 lines or a function over 60 (a function is one
# thought a reader holds at once; a file, one concern), unless Scripts/size-exceptions.txt names
# it, and then only up to the size it names. An exception that fits the limits again must leave
# the list. Run from anywhere: ./Scripts/check-sizes.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if python3 Scripts/check-sizes.py Sources Scripts/size-exceptions.txt; then
    echo "check-sizes: no file over 400 lines and no function over 60 in Sources but the named exceptions ($(grep -cv '^\s*\(#\|$\)' Scripts/size-exceptions.txt))"
else
    echo "check-sizes: split the file or function, or name it in Scripts/size-exceptions.txt with the reason" >&2
    exit 1
fi
