#!/usr/bin/env bash
# Three `callbot serve` instances on one PostgreSQL 15 on this machine, and `callbot load` with
# BOTS bots spread over them (bot i on instance i mod 3, failing over to the next). Prints the
# load report's summary, what the instances routed (messages per second), the database's load
# over the run (transactions, rows written, NOTIFY traffic in the instances' metrics) and then
# the failover time: with the bots in calls, SIGKILL the second instance and time until every
# bot it held has logged in to another (and whether the calls went on).
#
#   Benchmarks/cluster-load.sh [BOTS] [DURATION] [RAMP]      (defaults: 1000 20 60)
#
# Release build; needs Debian's postgresql (./Scripts/bootstrap.sh --tests installs it). Run as root
# (PostgreSQL runs as the user postgres) or as a user who may run initdb.
set -euo pipefail
cd "$(dirname "$0")/.."
BOTS=${1:-1000} DURATION=${2:-20} RAMP=${3:-60}
BIN=/usr/lib/postgresql/15/bin
swift build -c release --product callbot >/dev/null
CALLBOT=$(swift build -c release --show-bin-path)/callbot

work=$(mktemp -d /tmp/cluster-load.XXXXXX)
chmod 755 "$work"
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres:postgres "$work"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    as_pg "$BIN/pg_ctl" -D "$work/data" stop -m fast >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

# PostgreSQL as a server would run it (durable commits), on a loopback port.
as_pg "$BIN/initdb" -D "$work/data" -A trust -U postgres >/dev/null
as_pg "$BIN/pg_ctl" -D "$work/data" -l "$work/pg.log" -o "-k $work -p 55432 -c listen_addresses=127.0.0.1 -c max_connections=200" start >/dev/null
as_pg "$BIN/createdb" -h 127.0.0.1 -p 55432 -U postgres swiftrtc
DB="postgres://postgres@127.0.0.1:55432/swiftrtc"
psql_value() { "$BIN/psql" -h 127.0.0.1 -p 55432 -U postgres -d swiftrtc -Atc "$1"; }

tokens="$work/tokens.txt"
for i in $(seq 0 $((BOTS - 1))); do echo "load-bot-$i:load-token-$i-0123456789abcdef"; done > "$tokens"
chmod 644 "$tokens"

urls=() ports=()
limits=(--max-connections $((BOTS + 100)) --max-connections-per-address $((BOTS + 100)))
for i in 0 1 2; do
    extra=()
    [ "$i" = 0 ] && extra=(--tokens "$tokens")
    "$CALLBOT" serve --port 0 --database "$DB" --log-level nothing "${limits[@]}" "${extra[@]}" > "$work/serve-$i.out" 2>&1 &
    pids+=($!)
    until grep -q '^READY ' "$work/serve-$i.out"; do
        kill -0 "${pids[$i]}" 2>/dev/null || { cat "$work/serve-$i.out" >&2; exit 1; }
        sleep 0.2
    done
    url=$(sed -n 's/^READY //p' "$work/serve-$i.out")
    urls+=(--server "$url")
    port=${url##*:}; ports+=("${port%%/*}")
done
metric() {  # metric PORT NAME: the sample's value (0 when absent or the instance is gone)
    curl -s "http://127.0.0.1:$1/metrics" 2>/dev/null | awk -v n="$2" '$1 == n { v = $2 } END { print v + 0 }'
}
routed() { local sum=0; for port in "${ports[@]}"; do
    sum=$((sum + $(metric $port 'signaling_messages_routed_total{path="local"}' | cut -d. -f1) \
                + $(metric $port 'signaling_messages_routed_total{path="instance"}' | cut -d. -f1))); done; echo $sum; }
db_stats="select xact_commit, tup_inserted + tup_updated + tup_deleted from pg_stat_database where datname = 'swiftrtc'"

echo "== $BOTS bots ($((BOTS / 2)) calls in pairs) over three instances, held ${DURATION} s, starts over ${RAMP} s"
read -r commits0 rows0 < <(psql_value "$db_stats" | tr '|' ' ')
routed0=$(routed)
started=$(date +%s.%N)
"$CALLBOT" load "${urls[@]}" --tokens-file "$tokens" --bots "$BOTS" --duration "$DURATION" --ramp "$RAMP" \
    --setup-timeout 60 --login-timeout 60 --report "$work/load.json" || true
elapsed=$(echo "$(date +%s.%N) - $started" | bc)
read -r commits1 rows1 < <(psql_value "$db_stats" | tr '|' ' ')
routed1=$(routed)
python3 - "$work/load.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"connected {r['calls_connected']}/{r['calls_attempted']} calls ({100 * r['calls_connected'] / max(1, r['calls_attempted']):.1f}%), "
      f"decoded audio {r['calls_decoded_audio']}, failures {r['failures']}")
print(f"setup ms p50 {r['setup_ms']['p50']} p95 {r['setup_ms']['p95']} max {r['setup_ms']['max']}; "
      f"login ms p50 {r['login_ms']['p50']} p95 {r['login_ms']['p95']}")
print(f"load generator: {r['cpu_seconds_per_call']:.2f} s CPU per call, peak RSS {r['peak_rss_mb']:.0f} MB, loss {r['loss_fraction']}")
PY
echo "instances routed $((routed1 - routed0)) messages in $(printf %.0f "$elapsed") s: $(echo "($routed1 - $routed0) / $elapsed" | bc) per second"
echo "database: $((commits1 - commits0)) transactions ($(echo "($commits1 - $commits0) / $elapsed" | bc)/s), $((rows1 - rows0)) rows written"
for i in 0 1 2; do echo "  instance ${ports[$i]}: CPU $(ps -o times= -p "${pids[$i]}") s"; done

echo "== failover: the bots in calls, SIGKILL the second instance (${ports[1]})"
"$CALLBOT" load "${urls[@]}" --tokens-file "$tokens" --bots "$BOTS" --duration $((RAMP + 60)) --ramp "$RAMP" \
    --setup-timeout 60 --login-timeout 60 --report "$work/failover.json" > /dev/null 2>&1 &
load=$!
pids+=($load)
logins() { local sum=0; for port in "$@"; do sum=$((sum + $(metric "$port" 'signaling_logins_total{result="ok"}' | cut -d. -f1))); done; echo $sum; }
# Once the starts are over, and the calls held, the kill.
sleep $((RAMP + 10))
moving=$(metric "${ports[1]}" signaling_connections | cut -d. -f1)
before=$(logins "${ports[0]}" "${ports[2]}")
killed=$(date +%s.%N)
kill -9 "${pids[1]}"
# Each bot of the killed instance logs in once to another (its next --server).
moved=0
for _ in $(seq 1 1200); do
    moved=$(( $(logins "${ports[0]}" "${ports[2]}") - before ))
    [ "$moved" -ge "$moving" ] && break
    sleep 0.1
done
echo "$moved of the $moving bots of the killed instance logged in elsewhere $(echo "$(date +%s.%N) - $killed" | bc) s after the kill"
wait "$load" || true
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(f\"calls through the failover: {r['calls_connected']}/{r['calls_attempted']} connected, {r['calls_decoded_audio']} decoded, failures {r['failures']}\")" "$work/failover.json"
