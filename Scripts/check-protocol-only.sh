#!/usr/bin/env bash
# Fails when a client of the signaling protocol cannot be built without the servers: builds the
# tiny package in Scripts/protocol-only (it depends on the SwiftRTCSignaling product alone), runs
# it, and fails if the build compiled any server module (Hummingbird's HTTP server and its TLS,
# HTTP/2 or router, the SwiftRTC servers, GRDB, PostgresNIO). Its own scratch folder
# (.build-protocol-only); a few minutes the first time (swift-nio, swift-nio-ssl), seconds after.
# Run from anywhere: ./Scripts/check-protocol-only.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=$PWD/.build-protocol-only
swift build --package-path Scripts/protocol-only --scratch-path "$scratch" --product protocol-only
"$(swift build --package-path Scripts/protocol-only --scratch-path "$scratch" --show-bin-path)/protocol-only"
# The Swift modules the build compiled (SwiftPM plans every target of the graph, but compiles
# only what the product needs).
modules=$(find "$scratch" -path '*/debug/Modules/*.swiftmodule' -printf '%f\n' | sed 's/\.swiftmodule$//' | sort)
servers=$(grep -xE 'Hummingbird|HummingbirdCore|HummingbirdTLS|HummingbirdHTTP2|HummingbirdRouter|HummingbirdWebSocket|SwiftRTCSignalingServer|GRDB|PostgresNIO' <<<"$modules" || true)
if [[ -n "$servers" ]]; then
    echo "check-protocol-only: a client of SwiftRTCSignaling builds server modules:" $servers >&2
    exit 1
fi
echo "check-protocol-only: SwiftRTCSignaling builds with $(wc -l <<<"$modules") modules, no server among them"
