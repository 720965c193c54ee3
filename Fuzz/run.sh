#!/usr/bin/env bash
# Builds the libFuzzer targets (ASan + coverage) and runs each for a while.
#   ./run.sh [SECONDS_PER_TARGET] [TARGET...]      default 60 s, all targets
#   FUZZ_RUNS=N ./run.sh 0 [TARGET...]              CI budget: exactly N mutations per target with a fixed
#                                                   seed (-seed=1), so a CI run is repeatable, not timed
# Corpus seeds: $SHOEBOX_CORPUS (default ../../shared/corpus), ../Fixtures/generated, seeds/<name>.
# Working corpora: .corpus/<target> (kept between runs). Crash/timeout/OOM inputs: artifacts/<target>/.
# Prints executions, coverage and findings per target; exits 1 if any target found something.
set -uo pipefail
cd "$(dirname "$0")"

ALL=(FuzzBMFF FuzzJPEG FuzzPNG FuzzGIF FuzzWebP FuzzMakerNote FuzzXMP FuzzTIFF FuzzAAE FuzzTakeout
     FuzzInflate FuzzProbe FuzzPredicate FuzzRawPreview FuzzTIFFDirectories FuzzStill FuzzMPEGTS FuzzFacts)
SECONDS_PER=${1:-60}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=("${ALL[@]}")
CORPUS=${SHOEBOX_CORPUS:-../../shared/corpus}

max_len() {
    case $1 in
        FuzzPredicate) echo 4096 ;;
        FuzzMakerNote|FuzzXMP|FuzzAAE|FuzzTakeout|FuzzInflate|FuzzGIF|FuzzWebP|FuzzPNG|FuzzStill|FuzzFacts) echo 65536 ;;
        *) echo 262144 ;;
    esac
}

echo "== building (debug, -sanitize=fuzzer,address)"
# A scratch path of its own: SwiftPM does not rebuild modules when only -Xswiftc flags change.
SCRATCH=.build/sanitized
swift build -c debug --scratch-path "$SCRATCH" \
    -Xswiftc -sanitize=fuzzer -Xswiftc -sanitize=address \
    -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp \
    2>&1 | grep -v -e "Cannot export local symbol" -e "^\[[0-9]*/[0-9]*\] Compiling" >&2
[ "${PIPESTATUS[0]}" -eq 0 ] || { echo "build failed" >&2; exit 2; }
BIN=$(swift build -c debug --scratch-path "$SCRATCH" --show-bin-path)

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1}
# libFuzzer/ASan print the stack; Swift's own backtracer would only add noise (and trip ASan on its memcpy).
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}
failed=0
SUMMARY=$(mktemp)
trap 'rm -f "$SUMMARY"' EXIT
if [ -n "${FUZZ_RUNS:-}" ]; then BUDGET=(-runs="$FUZZ_RUNS" -seed=1); WHAT="$FUZZ_RUNS runs"
else BUDGET=(-max_total_time="$SECONDS_PER"); WHAT="${SECONDS_PER}s"; fi
printf '\n%-14s %12s %8s %8s %s\n' TARGET EXECS COV CORPUS FINDINGS > "$SUMMARY"
for t in "${TARGETS[@]}"; do
    [ -x "$BIN/$t" ] || { echo "no such target: $t" >&2; failed=1; continue; }
    corpus=.corpus/$t; art=artifacts/$t; log=logs/$t.log
    mkdir -p "$corpus" "$art" logs
    ./seed.py "$t" "$corpus" "$CORPUS" ../Fixtures/generated >/dev/null
    before=$(ls "$art" | wc -l)
    echo "== $t ($WHAT)"
    "$BIN/$t" "$corpus" "${BUDGET[@]}" -timeout=10 -rss_limit_mb=2048 \
        -max_len="$(max_len "$t")" -artifact_prefix="$art/" -print_final_stats=1 >"$log" 2>&1
    rc=$?
    # -a: a log can hold NUL bytes (two runs of one target writing it at once); read it as text anyway.
    execs=$(grep -a -o 'stat::number_of_executed_units: [0-9]*' "$log" | tail -1 | awk '{print $2}')
    cov=$(grep -a -oE '^#[0-9]+[[:space:]]+(DONE|NEW|REDUCE|pulse|INITED).*cov: [0-9]+' "$log" | tail -1 | grep -oE 'cov: [0-9]+' | awk '{print $2}')
    units=$(ls "$corpus" | wc -l)
    new=$(ls -t "$art" | head -n $(( $(ls "$art" | wc -l) - before )))
    finding=none
    if [ "$rc" -ne 0 ] || [ -n "$new" ]; then
        failed=1
        why=$(grep -a -m1 -E 'ERROR: (AddressSanitizer|libFuzzer)|Fatal error' "$log" | cut -c1-100)
        top=$(grep -a -m1 -oE 'in \S+ \S*/Sources/\S+' "$log" | sed 's|.*/Sources/|Sources/|')
        top="$why @ ${top:-?}"
        finding="rc=$rc ${new//$'\n'/ } :: $top (log: Fuzz/$log)"
    fi
    printf '%-14s %12s %8s %8s %s\n' "$t" "${execs:-?}" "${cov:-?}" "$units" "$finding" >> "$SUMMARY"
    tail -1 "$SUMMARY"
done
cat "$SUMMARY"
exit $failed
