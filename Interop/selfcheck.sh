#!/usr/bin/env bash
# Proves the interop harness by running its real peers (aiortc, and Chromium and Firefox ESR
# through browser_peer.py) against each other over WHIP on 127.0.0.1, and asserts from both bot
# reports that audio and video were decoded on both ends:
#   1. aiortc whip-server   <- Chromium whip-client
#   2. Chromium whip-server <- aiortc whip-client
#   3. aiortc whip-server   <- Firefox whip-client
#   4. Firefox whip-server  <- Chromium whip-client
#   5. aiortc whip-server   <- Chromium whip-client, both relay-only through a real coturn
#   6. Chromium whip-server (relay-only through coturn) <- aiortc whip-client (host candidates)
#   7. aiortc whip-server   <- Firefox whip-client, both relay-only through coturn
# With --data it runs the data channel pairings instead (whip-server --echo-data, whip-client
# --data-channel): aiortc <- aiortc, aiortc <- Chromium, aiortc <- Firefox, Chromium <- aiortc and
# Firefox <- aiortc, each with six variants (ordered and unordered, text and binary, 1, 1000 and
# 262144-byte messages, data-only and beside audio and video), and asserts every echo came back.
# Usage: Interop/selfcheck.sh [--duration SECONDS] [--keep DIR] [--data]
# Exits 0 when every pairing passed, 1 when one failed, 2 when a dependency is missing.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
duration=5
out=""
data=0
while (($#)); do
  case "$1" in
    --duration) duration="$2"; shift 2 ;;
    --keep) out="$2"; shift 2 ;;
    --data) data=1; shift ;;
    *) echo "usage: $0 [--duration SECONDS] [--keep DIR] [--data]" >&2; exit 2 ;;
  esac
done

missing() { echo "selfcheck: $1 is missing; install it with: $2" >&2; exit 2; }
missing_python() { echo "selfcheck: $1 is missing; run ./Scripts/bootstrap.sh --tests" >&2; exit 2; }
# The project's own Python (.venv/, made by ./Scripts/bootstrap.sh --tests with Debian's
# python3), never the python3 first on PATH.
python="$(cd "$here/.." && pwd)/.venv/bin/python"
[ -x "$python" ] || missing_python "the project's Python ($python)"
"$python" -c 'import aiortc' 2>/dev/null || missing_python "aiortc (in $python)"
command -v chromium >/dev/null || command -v chromium-browser >/dev/null || missing chromium "apt-get install -y chromium"
command -v chromedriver >/dev/null || missing chromedriver "apt-get install -y chromium-driver"
command -v firefox-esr >/dev/null || command -v firefox >/dev/null || missing "Firefox ESR" "apt-get install -y firefox-esr"
"$python" -c 'import marionette_driver' 2>/dev/null || missing_python "marionette_driver (in $python)"
command -v turnserver >/dev/null || missing "turnserver (coturn)" "apt-get install -y coturn"

keep_out=1
if [ -n "$out" ]; then mkdir -p "$out"; else out="$(mktemp -d -t swiftrtc-selfcheck.XXXXXX)"; keep_out=0; fi

# Every background child is recorded here; the trap ends each of them by its pid (TERM, so a
# browser peer can close its browser; KILL after a grace period), even on failure or ^C.
children=()
cleanup() {
  local pid
  for pid in "${children[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  for _ in $(seq 40); do
    local alive=0
    for pid in "${children[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    ((alive)) || break
    sleep 0.5
  done
  for pid in "${children[@]}"; do kill -KILL "$pid" 2>/dev/null; done
  ((keep_out)) || rm -rf "$out"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A port below the ephemeral range, free on loopback (interop_common.free_port says why).
free_port() { "$python" -c 'import sys; sys.path.insert(0, sys.argv[1]); from interop_common import free_port; print(free_port())' "$here"; }
now_ms() { date +%s%3N; }

# wait_ready FILE PID: waits (bounded) for the server's "READY <url>" line and prints the url.
wait_ready() {
  local file="$1" pid="$2"
  for _ in $(seq 600); do
    if grep -q '^READY ' "$file" 2>/dev/null; then sed -n 's/^READY //p' "$file" | head -1; return 0; fi
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

failures=0
summary=()

# peer_command PEER: the script and flags that run PEER (aiortc, chromium or firefox).
peer_command() {
  case "$1" in
    aiortc) echo aiortc_peer.py ;;
    chromium|firefox) echo "browser_peer.py --browser $1" ;;
  esac
}

# pairing NAME SERVER_PEER CLIENT_PEER, with extra flags for each side in the arrays
# server_flags and client_flags (a side with --relay-only must end up on a relay pair).
server_flags=()
client_flags=()
pairing() {
  local name="$1" server client
  read -r -a server <<<"$(peer_command "$2")"
  read -r -a client <<<"$(peer_command "$3")"
  local dir="$out/$name" port url server_pid start end rc_client rc_server
  mkdir -p "$dir"
  port="$(free_port)"
  start="$(now_ms)"
  timeout -k 10 120 "$python" "$here/${server[0]}" "${server[@]:1}" whip-server --port "$port" --once --duration 90 \
    --report "$dir/server.json" "${server_flags[@]}" >"$dir/server.out" 2>"$dir/server.err" &
  server_pid=$!
  children+=("$server_pid")
  if ! url="$(wait_ready "$dir/server.out" "$server_pid")"; then
    echo "selfcheck: $name: $2 did not become ready; its stderr:" >&2
    tail -20 "$dir/server.err" >&2
    failures=$((failures + 1)); summary+=("$name: FAILED (server not ready)")
    return
  fi
  timeout -k 10 120 "$python" "$here/${client[0]}" "${client[@]:1}" whip-client "$url" --duration "$duration" \
    --report "$dir/client.json" "${client_flags[@]}" >"$dir/client.out" 2>"$dir/client.err"
  rc_client=$?
  # The client's DELETE ends the --once server; wait for it to write its report.
  wait "$server_pid"; rc_server=$?
  end="$(now_ms)"
  local server_relay=() client_relay=()
  [[ " ${server_flags[*]} " == *" --relay-only "* ]] && server_relay=(--relay)
  [[ " ${client_flags[*]} " == *" --relay-only "* ]] && client_relay=(--relay)
  echo "== $name ($(( (end - start) / 1000 )).$(( (end - start) % 1000 / 100 )) s, server exit $rc_server, client exit $rc_client)"
  if "$python" "$here/check_report.py" "${server_relay[@]}" "$dir/server.json" "${client_relay[@]}" "$dir/client.json" \
      && [ "$rc_server" -eq 0 ] && [ "$rc_client" -eq 0 ]; then
    summary+=("$name: ok")
  else
    echo "selfcheck: $name failed; stderr of both peers:" >&2
    tail -15 "$dir/server.err" "$dir/client.err" >&2
    failures=$((failures + 1)); summary+=("$name: FAILED")
  fi
}

# data_pairing NAME SERVER_PEER CLIENT_PEER MEDIA_SECONDS LABEL MESSAGES SIZE [CLIENT FLAGS...]:
# SERVER_PEER whip-server --echo-data <- CLIENT_PEER whip-client --data-channel LABEL
# --data-messages MESSAGES --data-size SIZE [CLIENT FLAGS]; data-only when MEDIA_SECONDS is 0
# (the client then ends once the echoes are back), else beside audio and video for that long.
data_pairing() {
  local name="$1" media_seconds="$4" label="$5" messages="$6" size="$7" server client
  read -r -a server <<<"$(peer_command "$2")"
  read -r -a client <<<"$(peer_command "$3")"
  shift 7
  local dir="$out/$name" port url server_pid start end rc_client rc_server
  local media=(--no-audio --no-video) check=(--no-media)
  ((media_seconds > 0)) && media=(--duration "$media_seconds") && check=()
  mkdir -p "$dir"
  port="$(free_port)"
  start="$(now_ms)"
  timeout -k 10 120 "$python" "$here/${server[0]}" "${server[@]:1}" whip-server --port "$port" --once --duration 90 \
    --echo-data --report "$dir/server.json" >"$dir/server.out" 2>"$dir/server.err" &
  server_pid=$!
  children+=("$server_pid")
  if ! url="$(wait_ready "$dir/server.out" "$server_pid")"; then
    echo "selfcheck: $name: $2 did not become ready; its stderr:" >&2
    tail -20 "$dir/server.err" >&2
    failures=$((failures + 1)); summary+=("$name: FAILED (server not ready)")
    return
  fi
  timeout -k 10 120 "$python" "$here/${client[0]}" "${client[@]:1}" whip-client "$url" "${media[@]}" \
    --data-channel "$label" --data-messages "$messages" --data-size "$size" "$@" \
    --report "$dir/client.json" >"$dir/client.out" 2>"$dir/client.err"
  rc_client=$?
  wait "$server_pid"; rc_server=$?
  end="$(now_ms)"
  echo "== $name: $messages x $size B $* ($(( (end - start) / 1000 )).$(( (end - start) % 1000 / 100 )) s, server exit $rc_server, client exit $rc_client)"
  local expect=(--data-channel "$label" --expect-messages "$messages" --expect-size "$size")
  if "$python" "$here/check_report.py" "${check[@]}" "${expect[@]}" "$dir/server.json" \
      "${check[@]}" "${expect[@]}" "$dir/client.json" && [ "$rc_server" -eq 0 ] && [ "$rc_client" -eq 0 ]; then
    summary+=("$name: ok")
  else
    echo "selfcheck: $name failed; stderr of both peers:" >&2
    tail -15 "$dir/server.err" "$dir/client.err" >&2
    failures=$((failures + 1)); summary+=("$name: FAILED")
  fi
}

finish_selfcheck() {
  echo
  printf '%s\n' "${summary[@]}"
  if ((failures)); then
    keep_out=1
    echo "selfcheck: $failures failure(s); logs and reports kept in $out" >&2
    exit 1
  fi
  ((keep_out)) && echo "selfcheck: all pairings passed (reports in $out)" || echo "selfcheck: all pairings passed"
  exit 0
}

if ((data)); then
  # The checker must fail a data channel row with a lost echo and a mismatched one.
  mkdir -p "$out/checker"
  cat >"$out/checker/lost-echo.json" <<'JSON'
{"peer": "test", "role": "whip-client", "connected": true, "errors": [], "audio": {}, "video": {},
 "data_channels": [{"label": "chat", "messages_sent": 10, "messages_received": 10, "bytes_sent": 1000,
  "bytes_received": 1000, "echo_mismatches": 1, "open_ms": 50, "echo_ms": 2.5}]}
JSON
  if "$python" "$here/check_report.py" --no-media --data-channel chat "$out/checker/lost-echo.json" \
      >/dev/null 2>"$out/checker/stderr"; then
    echo "selfcheck: check_report.py accepted a data channel row with an echo mismatch" >&2
    failures=$((failures + 1)); summary+=("checker: FAILED")
  else
    summary+=("checker rejects an echo mismatch: ok")
  fi
  for pair in "aiortc aiortc" "aiortc chromium" "aiortc firefox" "chromium aiortc" "firefox aiortc"; do
    read -r server_peer client_peer <<<"$pair"
    p="$server_peer-server-$client_peer-client"
    data_pairing "$p-1" "$server_peer" "$client_peer" 0 chat 100 1
    data_pairing "$p-2" "$server_peer" "$client_peer" 0 bulk 4 262144 --data-binary --data-unordered
    data_pairing "$p-3" "$server_peer" "$client_peer" 0 bin 100 1000 --data-binary
    data_pairing "$p-4" "$server_peer" "$client_peer" 0 big-text 4 262144 --data-unordered
    data_pairing "$p-5" "$server_peer" "$client_peer" 3 events 100 1000 --data-unordered --data-max-retransmits 0
    data_pairing "$p-6" "$server_peer" "$client_peer" 3 bulk-media 2 262144 --data-binary
  done
  finish_selfcheck
fi

# The checker itself must be able to fail: a connected call that decoded silence and no video.
mkdir -p "$out/checker"
cat >"$out/checker/silent.json" <<'JSON'
{"peer": "test", "role": "whip-client", "connected": true, "ice_connected_ms": 10, "dtls_connected_ms": 20,
 "audio": {"rtp_packets_sent": 250, "rtp_packets_received": 250, "frames_decoded": 250, "rms": 0.0},
 "video": {"rtp_packets_sent": 200, "rtp_packets_received": 200, "frames_decoded": 0, "width": null, "height": null},
 "errors": []}
JSON
if "$python" "$here/check_report.py" "$out/checker/silent.json" >/dev/null 2>"$out/checker/stderr"; then
  echo "selfcheck: check_report.py accepted a report with silent audio and no decoded video" >&2
  failures=$((failures + 1)); summary+=("checker: FAILED")
else
  summary+=("checker rejects silence and undecoded video: ok")
fi

pairing aiortc-server-chromium-client aiortc chromium
pairing chromium-server-aiortc-client chromium aiortc
pairing aiortc-server-firefox-client aiortc firefox
pairing firefox-server-chromium-client firefox chromium

# coturn on loopback only; long-term credentials user:pass in realm swiftrtc.
turn_port="$(free_port)"
mkdir -p "$out/turn"
timeout -k 5 300 turnserver --allow-loopback-peers --no-cli -n -v \
  --listening-ip 127.0.0.1 --relay-ip 127.0.0.1 --listening-port "$turn_port" \
  --no-tls --no-dtls --no-tcp-relay -a -u user:pass -r swiftrtc \
  --userdb "$out/turn/turndb" --pidfile "$out/turn/turnserver.pid" \
  --log-file stdout --simple-log >"$out/turn/turnserver.log" 2>&1 &
turn_pid=$!
children+=("$turn_pid")
for _ in $(seq 100); do grep -q "Relay ports initialization done" "$out/turn/turnserver.log" 2>/dev/null && break; sleep 0.1; done
turn=(--ice-server "turn:127.0.0.1:$turn_port" --ice-username user --ice-credential pass --relay-only)
server_flags=("${turn[@]}"); client_flags=("${turn[@]}")
pairing turn-relay-both-aiortc-server-chromium-client aiortc chromium
server_flags=("${turn[@]}"); client_flags=()
pairing turn-relay-chromium-server-aiortc-client chromium aiortc
server_flags=("${turn[@]}"); client_flags=("${turn[@]}")
pairing turn-relay-both-aiortc-server-firefox-client aiortc firefox
server_flags=(); client_flags=()
sleep 1
# Bytes coturn relayed to and from peers (logged when an allocation is released).
relayed="$(sed -n 's/.*peer usage: .*rb=\([0-9]*\), sp=[0-9]*, sb=\([0-9]*\).*/\1 \2/p' "$out/turn/turnserver.log" \
  | awk '{s += $1 + $2} END {print s + 0}')"
allocations="$(grep -c "ALLOCATE processed, success" "$out/turn/turnserver.log")"
echo "== coturn: $allocations allocations, $relayed bytes relayed to/from peers"
if [ "$relayed" -lt 200000 ]; then
  echo "selfcheck: coturn relayed only $relayed bytes; the relay-only calls did not go through it" >&2
  failures=$((failures + 1)); summary+=("coturn relay: FAILED")
fi

finish_selfcheck
