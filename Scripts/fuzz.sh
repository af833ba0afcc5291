#!/usr/bin/env bash
# Builds `swiftrtc-fuzz`, every fuzzer of Fuzz/ in one executable (release unless
# FUZZ_CONFIGURATION=debug, libFuzzer +
# AddressSanitizer) in .build-fuzz, and runs each fuzzer for SECONDS_PER_TARGET seconds on a
# copy of its corpus and regressions, one per core at a time. Prints a line per fuzzer (runs,
# execs/s, coverage, corpus, time) and `N passed, N failed`; exits 1 on any finding (crash,
# leak, timeout of 10 s, over 2 GB), printing where libFuzzer left the reproducer. The committed
# corpus is never written: new inputs stay in the run's folder under .build-fuzz/runs/.
#
# Usage: Scripts/fuzz.sh [SECONDS_PER_TARGET (default 60)] [FUZZER...]   (default: every fuzzer)
#        Scripts/fuzz.sh build                        # only build (CI: on idle CPU while the tests run)
#        Scripts/fuzz.sh run SECONDS [FUZZER...]      # only run what `build` made
#   e.g. FUZZ_CONFIGURATION=debug Scripts/fuzz.sh run 10   # CI's short pass, after its build
#        nice -n 19 Scripts/fuzz.sh 600 SDPFuzzer
# Replay a reproducer in an ordinary build: swift run swiftrtc-fuzz <Fuzzer> <file>  (Fuzz/README.md).
set -uo pipefail
cd "$(dirname "$0")/.."

# `build`: only build. `run`: only run what `build` made (CI: SwiftPM's planning alone takes
# some 40 s even when nothing is to be built).
mode=both
if [[ ${1:-} == build || ${1:-} == run ]]; then
    mode=$1
    shift
fi
seconds=${1:-60}
shift || true
if (($# > 0)); then
    targets=("$@")
else
    targets=()
    for folder in Fuzz/*Fuzzer; do targets+=("$(basename "$folder")"); done
fi
for target in "${targets[@]}"; do
    [[ -d "Fuzz/$target/corpus" ]] || { echo "fuzz.sh: no fuzzer $target (expected its seeds in Fuzz/$target/corpus)" >&2; exit 2; }
done

# FUZZ_CONFIGURATION=debug builds without optimization: CI's short pass does, since the
# release build's compile is too much to fit beside the tests' build and run on two cores
# (it ran on for minutes after the tests); it finds less per second, never less per input.
configuration=${FUZZ_CONFIGURATION:-release}
[[ $configuration == release || $configuration == debug ]] || { echo "fuzz.sh: FUZZ_CONFIGURATION is release or debug" >&2; exit 2; }
scratch=.build-fuzz
flags=(-c "$configuration" --scratch-path "$scratch" -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING)
run="$scratch/runs/$(date +%Y%m%d-%H%M%S)-$$"
mkdir -p "$run"

# SwiftPM links the products of a configuration in <scratch>/<configuration>.
bin="$scratch/$configuration"
if [[ $mode != run ]]; then
    # SwiftPM also builds the benchmark plugin's tool, which cannot link with these flags; that
    # does not stop the fuzzer's product, so the build is judged by SwiftPM's line for it.
    started=$SECONDS
    swift build "${flags[@]}" --product swiftrtc-fuzz >"$run/build.log" 2>&1
    if ! grep -q "Build of product 'swiftrtc-fuzz' complete" "$run/build.log" || [[ ! -x "$bin/swiftrtc-fuzz" ]]; then
        echo "fuzz.sh: swiftrtc-fuzz did not build; from $run/build.log:" >&2
        grep -E "error:" "$run/build.log" | head -20 >&2 || tail -20 "$run/build.log" >&2
        exit 1
    fi
    echo "built swiftrtc-fuzz in $((SECONDS - started)) s ($bin)"
fi
[[ $mode != build ]] || exit 0
[[ -x "$bin/swiftrtc-fuzz" ]] || { echo "fuzz.sh: no $bin/swiftrtc-fuzz: run Scripts/fuzz.sh build first" >&2; exit 2; }
bin=$(cd "$bin" && pwd -P)

# One fuzzer per core at a time (each libFuzzer process runs one input at a time): the pass
# takes its SECONDS_PER_TARGET per fuzzer divided by the cores. Each writes its lines to its
# folder; they are printed in the fuzzers' order when all have ended.
run_one() {
    local target=$1 dir="$run/$1"
    mkdir -p "$dir/corpus" "$dir/artifacts"
    cp Fuzz/"$target"/corpus/* "$dir/corpus/" 2>/dev/null
    cp Fuzz/"$target"/regressions/* "$dir/corpus/" 2>/dev/null
    local seeds per_input at_exit
    seeds=$(ls "$dir/corpus" | wc -l)
    # Leak checks. libFuzzer's per-input check suits bodies that free what they allocate
    # before they return; a body that awaits async work (runBlocking) has its task freed on
    # another thread just after, so every input would cost a whole LeakSanitizer scan:
    # SignalingFuzzer is checked once, at exit. The negotiation and WHIP bodies keep objects
    # alive past their input (the endpoint; transports the feedback ticker lets go within
    # 10 ms) whose weak-reference side tables LeakSanitizer takes for leaks: no LeakSanitizer
    # there, they check their open descriptors instead (Fuzz/README.md).
    case $target in
    NegotiationFuzzer | WHIPFuzzer) per_input=0 at_exit=0 ;;
    SignalingFuzzer) per_input=0 at_exit=1 ;;
    *) per_input=1 at_exit=1 ;;
    esac
    local begin=$SECONDS status
    # Swift's own crash backtracer off: AddressSanitizer prints the stack of a trap.
    (cd "$dir" && SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="detect_leaks=$at_exit${ASAN_OPTIONS:+:$ASAN_OPTIONS}" SWIFTRTC_FUZZER="$target" "$bin/swiftrtc-fuzz" corpus -max_total_time="$seconds" \
        -timeout=10 -rss_limit_mb=2048 -detect_leaks=$per_input -artifact_prefix=artifacts/ -print_final_stats=1 >log 2>&1)
    status=$?
    local elapsed=$((SECONDS - begin))
    # libFuzzer's last status line: "#<runs> <event> cov: <n> ft: <n> corp: <n>/<size> ... exec/s: <n> ...".
    local last runs rate rss cov ft corp findings summary
    last=$(grep -E '^#[0-9]+' "$dir/log" | tail -1)
    final_stat() { awk -v key="stat::$1:" '$1 == key { print $2 }' "$dir/log" | tail -1; }
    runs=$(final_stat number_of_executed_units) rate=$(final_stat average_exec_per_sec) rss=$(final_stat peak_rss_mb)
    cov=$(grep -oE 'cov: [0-9]+' <<<"$last" | grep -oE '[0-9]+' || true)
    ft=$(grep -oE 'ft: [0-9]+' <<<"$last" | grep -oE '[0-9]+' || true)
    corp=$(grep -oE 'corp: [0-9]+/[0-9]+[a-zA-Z]*' <<<"$last" | cut -d' ' -f2 || true)
    findings=$(find "$dir/artifacts" -type f ! -name 'slow-unit-*' | sort)
    summary="runs ${runs:-?}, ${rate:-?} exec/s, cov ${cov:-?} ft ${ft:-?}, corpus ${corp:-?} (from $seeds seeds), peak RSS ${rss:-?} MB, ${elapsed} s"
    if ((status == 0)) && [[ -z "$findings" ]]; then
        echo "$target: passed: $summary" >"$dir/result"
    else
        {
            echo "$target: FAILED (libFuzzer exit $status): $summary"
            grep -E '^==[0-9]+==ERROR|^SUMMARY|Fatal error|fatal error|^ *#[0-9]+ 0x.* in ' "$dir/log" | head -25 | sed 's/^/    /'
            for finding in $findings; do echo "    reproducer: $finding"; done
            [[ -n "$findings" ]] || echo "    no reproducer written; the log: $dir/log"
        } >"$dir/result"
    fi
}

cores=$(nproc)
for target in "${targets[@]}"; do
    while (($(jobs -rp | wc -l) >= cores)); do wait -n; done
    run_one "$target" &
done
wait
passed=0 failed=0
for target in "${targets[@]}"; do
    cat "$run/$target/result"
    if grep -q "^$target: passed" "$run/$target/result"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "$passed passed, $failed failed"
((failed == 0))
