#!/usr/bin/env bash
# Installs every system package that SwiftRTC's build, tests and interop peers need on
# Debian 12. Idempotent: when everything is present it only checks and exits in a second.
set -euo pipefail

# C libraries wrapped by the C-module targets (found with pkg-config), and their tools.
packages=(
  pkg-config
  libnice-dev libglib2.0-dev
  libsrtp2-dev
  libgnutls28-dev nettle-dev
  libopus-dev
  libvpx-dev vpx-tools
  libavformat-dev libswresample-dev
  # SQLite for GRDB (the signaling server's call log), and PostgreSQL 15 (many server
  # instances on one database; the tests start their own server with initdb).
  libsqlite3-dev postgresql
  # Conformance recording and inspection (Fixtures/*/record.sh) and fault tests (network
  # namespaces, nftables loss, tc tbf; ethtool turns veth offloads off for the impairment bridge;
  # gdb prints the stacks of a hung test run, see Tests/TestScheduling/Watchdog.swift).
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  ffmpeg tshark iproute2 nftables ethtool gdb
  # Real speech for the voice activity tests.
  espeak-ng
  # Interop peers and TURN relay (openssl: s_server/s_client for the DTLS interop tests;
  # firefox-esr is driven over Marionette by marionette_driver, below: Debian has no geckodriver).
  coturn chromium chromium-driver firefox-esr openssl
)

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
  echo "wireshark-common wireshark-common/install-setuid boolean false" | $sudo_cmd debconf-set-selections
  $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "bootstrap: system packages present"
fi

# Python interop peer (aiortc from PyPI).
if ! python3 -c 'import aiortc' 2>/dev/null; then
  echo "bootstrap: installing aiortc"
  python3 -m pip install -q 'aiortc==1.16.*'
fi

# The Firefox interop peer's driver (Interop/browsers.py talks Marionette through it).
if ! python3 -c 'import marionette_driver' 2>/dev/null; then
  echo "bootstrap: installing marionette-driver"
  python3 -m pip install -q marionette-driver
fi
