#!/usr/bin/env bash
# Records the SDP fixtures in this folder again from the real producers on this machine:
# headless Chromium (Debian `chromium` + `chromium-driver`, driven by chromium_sdp.py) and
# aiortc (PyPI, driven by aiortc_sdp.py). Both run without ICE servers and never connect.
# The answers to SwiftRTC's own offer are written by the SwiftRTCSDP interop tests
# (SWIFTRTC_RECORD_FIXTURES=1 swift test --filter JSEPInteropTests).
# Both run with the project's Python, .venv/ (./Scripts/bootstrap.sh --tests makes it).
set -euo pipefail
cd "$(dirname "$0")"
python=../../.venv/bin/python
[ -x "$python" ] || { echo "record.sh: no project Python at .venv/bin/python; run ./Scripts/bootstrap.sh --tests" >&2; exit 2; }
"$python" chromium_sdp.py record .
"$python" aiortc_sdp.py record .
