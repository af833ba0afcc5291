#!/usr/bin/env python3
"""The former name of the Chromium peer: `chromium_peer.py ARGS` is `browser_peer.py --browser
chromium ARGS` (same process: exec, so signals and the exit code are browser_peer.py's).
Kept while tests still call it by this name; new callers use browser_peer.py."""

import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
os.execv(sys.executable, [sys.executable, os.path.join(here, "browser_peer.py"), "--browser", "chromium", *sys.argv[1:]])
