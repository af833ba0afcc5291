#!/usr/bin/env bash
# Records Firefox ESR's SDPs of two real WHIP calls with callbot on 127.0.0.1, into this folder:
#   firefox-<major>-whip-offer-to-callbot.sdp            Firefox's offer as a WHIP client
#                                                        (callbot whip-server <- browser_peer.py whip-client)
#   firefox-<major>-whip-answer-to-callbot-offer.sdp     Firefox's answer as a WHIP endpoint
#                                                        (browser_peer.py whip-server <- callbot whip)
#   swiftrtc-callbot-whip-offer-to-firefox-<major>.sdp   callbot's offer that the answer answers
# Firefox's SDPs are its localDescription after gathering, exactly as produced (CRLF), before
# browser_peer.py drops the candidates not on 127.0.0.1 (so they carry this machine's other
# host addresses too). Each call runs 2 s of media and must connect; both reports are checked.
# Needs the built callbot (swift build; or CALLBOT=path), Debian firefox-esr and the Python
# package marionette-driver in the project's .venv/ (./Scripts/bootstrap.sh --tests installs both).
# Usage: Fixtures/sdp/record-firefox-whip.sh [--keep DIR]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
callbot="${CALLBOT:-$root/.build/debug/callbot}"
peer="$root/Interop/browser_peer.py"
python="$root/.venv/bin/python"
[ -x "$python" ] || { echo "record-firefox-whip: no project Python at $python; run ./Scripts/bootstrap.sh --tests" >&2; exit 2; }
[ -x "$callbot" ] || { echo "record-firefox-whip: no callbot at $callbot; run swift build first" >&2; exit 2; }
firefox="$(command -v firefox-esr || command -v firefox || true)"
[ -n "$firefox" ] || { echo "record-firefox-whip: firefox-esr is missing; install it with: apt-get install -y firefox-esr" >&2; exit 2; }

work="$(mktemp -d -t swiftrtc-record-firefox.XXXXXX)"
keep=""
if [ "${1:-}" = "--keep" ]; then keep="$2"; fi
children=()
cleanup() {
  local pid
  for pid in "${children[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${children[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ -n "$keep" ]; then mkdir -p "$keep" && cp -r "$work"/. "$keep"/; fi
  rm -rf "$work"
}
trap cleanup EXIT

# A port below the ephemeral range, free on loopback (interop_common.free_port says why).
free_port() { "$python" -c 'import sys; sys.path.insert(0, sys.argv[1]); from interop_common import free_port; print(free_port())' "$root/Interop"; }
# wait_ready FILE PID: the url of the "READY <url>" line (bounded wait).
wait_ready() {
  for _ in $(seq 900); do
    if grep -q '^READY ' "$1" 2>/dev/null; then sed -n 's/^READY //p' "$1" | head -1; return 0; fi
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

version="$("$firefox" --version | awk '{print $NF}')"   # e.g. 153.7.0esr
major="${version%%.*}"
echo "record-firefox-whip: Firefox $version, callbot $("$callbot" --version 2>/dev/null || echo '?')"

# 1. Firefox offers: callbot whip-server <- Firefox whip-client.
"$callbot" whip-server --port 0 --duration 60 --report "$work/offer-callbot.json" \
  >"$work/offer-callbot.out" 2>"$work/offer-callbot.err" &
server=$!; children+=("$server")
url="$(wait_ready "$work/offer-callbot.out" "$server")" || { echo "callbot whip-server did not start" >&2; exit 1; }
timeout -k 10 120 "$python" "$peer" --browser firefox whip-client "$url" --duration 2 \
  --report "$work/offer-firefox.json" --dump-sdp "$work/offer" >"$work/offer-firefox.out" 2>"$work/offer-firefox.err"
kill -TERM "$server"; wait "$server"
"$python" "$root/Interop/check_report.py" "$work/offer-callbot.json" "$work/offer-firefox.json"

# 2. Firefox answers: Firefox whip-server <- callbot whip.
port="$(free_port)"
timeout -k 10 120 "$python" "$peer" --browser firefox whip-server --port "$port" --once --duration 90 \
  --report "$work/answer-firefox.json" --dump-sdp "$work/answer" >"$work/answer-firefox.out" 2>"$work/answer-firefox.err" &
server=$!; children+=("$server")
url="$(wait_ready "$work/answer-firefox.out" "$server")" || { echo "browser_peer.py whip-server did not start" >&2; exit 1; }
"$callbot" whip "$url" --duration 2 --report "$work/answer-callbot.json" >"$work/answer-callbot.out" 2>"$work/answer-callbot.err"
wait "$server"
"$python" "$root/Interop/check_report.py" "$work/answer-callbot.json" "$work/answer-firefox.json"

cp "$work/offer/firefox-whip-client-offer-produced.sdp" "$here/firefox-$major-whip-offer-to-callbot.sdp"
cp "$work/answer/firefox-whip-server-1-answer-produced.sdp" "$here/firefox-$major-whip-answer-to-callbot-offer.sdp"
cp "$work/answer/firefox-whip-server-1-offer-received.sdp" "$here/swiftrtc-callbot-whip-offer-to-firefox-$major.sdp"
for f in "firefox-$major-whip-offer-to-callbot.sdp" "firefox-$major-whip-answer-to-callbot-offer.sdp" \
         "swiftrtc-callbot-whip-offer-to-firefox-$major.sdp"; do
  echo "$here/$f"
done
