#!/usr/bin/env bash
# Installs what SwiftRTC needs on Debian 12, as root or through sudo (apt-get).
#
#   ./Scripts/bootstrap.sh           the build and `swift run callbot demo`: C libraries only, no Python
#   ./Scripts/bootstrap.sh --tests   also what `swift test` needs: interop peers, fault tools, and
#                                    aiortc, numpy and marionette-driver in the project's own virtual
#                                    environment, .venv/ (Debian's Python refuses `pip install`
#                                    into itself, PEP 668)
#
# Idempotent: when everything is present it only checks and exits in about a second.
set -euo pipefail

usage() {
  echo "usage: $0 [--tests]" >&2
  echo "  (no argument)  the Debian packages the build and 'swift run callbot demo' need" >&2
  echo "  --tests        also the test suite's: interop peers, fault tools, and .venv with aiortc" >&2
}

tests=false
case "$#:${1:-}" in
  0:) ;;
  1:--tests) tests=true ;;
  1:-h | 1:--help) usage; exit 0 ;;
  *) usage; exit 2 ;;
esac

root="$(cd "$(dirname "$0")/.." && pwd)"

# C libraries wrapped by the C-module targets (found with pkg-config): libnice (and GLib, its
# headers' home), libsrtp2, GnuTLS and nettle (CSRTPNettle links it), libopus, libvpx, FFmpeg's
# libavformat and libswresample; usrsctp (data channels); and SQLite for GRDB (the signaling server's call log, which
# `callbot demo` writes). This is all the build and the demo need.
packages=(
  pkg-config
  libnice-dev libglib2.0-dev
  libsrtp2-dev
  libgnutls28-dev nettle-dev
  libopus-dev
  libvpx-dev
  libavformat-dev libswresample-dev
  libsqlite3-dev
  libusrsctp-dev
)

if $tests; then
  packages+=(
    # vpxenc/vpxdec for the codec comparison, and PostgreSQL 15 (many server instances on one
    # database; the tests start their own server with initdb).
    vpx-tools postgresql
    # Conformance recording and inspection (Fixtures/*/record.sh) and fault tests (network
    # namespaces, nftables loss, tc tbf; ethtool turns veth offloads off for the impairment
    # bridge; gdb prints the stacks of a hung test run, see Tests/TestScheduling/Watchdog.swift).
    gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
    ffmpeg tshark iproute2 nftables ethtool gdb
    # Real speech for the voice activity tests.
    espeak-ng
    # Interop peers and TURN relay (openssl: s_server/s_client for the DTLS interop tests;
    # firefox-esr is driven over Marionette by marionette_driver, below: Debian has no geckodriver).
    coturn chromium chromium-driver firefox-esr openssl
    # The SFU of the conference rooms (Janus 1.1.2: its VideoRoom plugin, WebSocket transport).
    janus
    # Debian's Python and its venv module: the interop peers run in .venv/, made below.
    python3 python3-venv
    # systemd-analyze verifies the operator's unit, Deploy/systemd/callbot-serve.service.
    systemd
  )
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update -qq
  # tshark asks whether non-root users may capture; answer for it.
  if $tests; then
    echo "wireshark-common wireshark-common/install-setuid boolean false" | $sudo_cmd debconf-set-selections
  fi
  $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "bootstrap: system packages present"
fi

$tests || exit 0

# The interop peers' Python packages, in a virtual environment of the project's own made with
# Debian's Python (/usr/bin/python3 by its full path, whatever python3 comes first on PATH). The
# tests and Interop/ scripts run .venv/bin/python.
venv="$root/.venv"
python="$venv/bin/python"
if ! [ -x "$python" ] || ! "$python" -c 'import sys; sys.exit(sys.base_prefix != "/usr")' 2>/dev/null; then
  echo "bootstrap: making $venv with /usr/bin/python3"
  rm -rf "$venv"
  /usr/bin/python3 -m venv "$venv"
fi

# aiortc, the Python interop peer, and numpy, with which Interop/aiortc_peer.py draws its frames
# and tone.
if ! "$python" -c 'import numpy, aiortc, sys; sys.exit(not aiortc.__version__.startswith("1.16."))' 2>/dev/null; then
  echo "bootstrap: installing aiortc and numpy into .venv"
  "$python" -m pip install -q --disable-pip-version-check 'aiortc==1.16.*' numpy
fi

# The Firefox interop peer's driver (Interop/browsers.py talks Marionette through it).
if ! "$python" -c 'import marionette_driver' 2>/dev/null; then
  echo "bootstrap: installing marionette-driver into .venv"
  "$python" -m pip install -q --disable-pip-version-check marionette-driver
fi
echo "bootstrap: .venv has aiortc, numpy and marionette-driver"
