#!/bin/sh
# SwiftRTC's Opus and VP8 paths against bare libopus and libvpx's vpxenc/vpxdec (Debian
# vpx-tools) on the same input; prints the ratios ours/bare. Release build, one thread.
set -eu
cd "$(dirname "$0")/.."
command -v vpxenc >/dev/null || { echo "vpxenc missing: apt-get install -y vpx-tools" >&2; exit 1; }
exec swift run -c release --scratch-path "${SCRATCH_PATH:-.build}" CodecsCompare
