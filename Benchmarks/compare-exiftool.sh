#!/usr/bin/env bash
# Side-by-side throughput: `shoebox probe` vs `exiftool` on the same replicated corpus tree.
#
#   Benchmarks/compare-exiftool.sh [-n FILES] [-c CORPUS] [--fast2] [--keep]
#
#   -n FILES   how many files to put in the tree (default 3000). The corpus's media files are
#              hard-linked (copied if linking fails) into rep-0001/, rep-0002/, ... until FILES is reached.
#              Each replica keeps the corpus layout, so Live Photo halves stay together.
#   -c CORPUS  corpus root (default: $SHOEBOX_CORPUS, else <repo>/../shared/corpus). facts/, *.json and
#              *.md are skipped.
#   --fast2    also time `exiftool -fast2`.
#   --keep     keep the tree ($TMPDIR/shoebox-bench) afterwards.
#
# Binary: $SHOEBOX, else <repo>/.build/release/shoebox (built with `swift build -c release` if missing).
# Needs bash, GNU coreutils/findutils, awk and exiftool (Debian: libimage-exiftool-perl).
# The tree is read once before timing, so both tools see a warm page cache.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"

files=3000
corpus="${SHOEBOX_CORPUS:-$repo/../shared/corpus}"
fast2=0
keep=0
while [ $# -gt 0 ]; do
    case "$1" in
        -n) files="$2"; shift 2 ;;
        -c) corpus="$2"; shift 2 ;;
        --fast2) fast2=1; shift ;;
        --keep) keep=1; shift ;;
        -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
        *) echo "compare-exiftool.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done

die() { echo "compare-exiftool.sh: $*" >&2; exit 1; }
case "$files" in ''|*[!0-9]*) die "-n needs a positive number" ;; esac
[ "$files" -gt 0 ] || die "-n needs a positive number"
[ -d "$corpus" ] || die "no corpus at '$corpus' (set SHOEBOX_CORPUS or use -c)"
command -v exiftool >/dev/null || die "exiftool not found (apt-get install libimage-exiftool-perl)"
command -v awk >/dev/null || die "awk not found"
corpus="$(cd "$corpus" && pwd)"

# --- shoebox binary ---------------------------------------------------------------------------------
shoebox="${SHOEBOX:-$repo/.build/release/shoebox}"
if [ ! -x "$shoebox" ]; then
    [ -z "${SHOEBOX:-}" ] || die "\$SHOEBOX=$SHOEBOX is not executable"
    command -v swift >/dev/null || die "no shoebox binary and no swift toolchain to build it"
    echo "building shoebox (swift build -c release) ..." >&2
    (cd "$repo" && swift build -c release --product shoebox >&2)
    [ -x "$shoebox" ] || die "build finished but $shoebox is missing"
fi

# --- replicated tree --------------------------------------------------------------------------------
tree="${TMPDIR:-/tmp}/shoebox-bench"
cleanup() { if [ "$keep" -eq 0 ]; then rm -rf "$tree"; fi; }
trap cleanup EXIT
trap 'exit 130' INT TERM
rm -rf "$tree"
mkdir -p "$tree"

mapfile -d '' media < <(cd "$corpus" && find . -path ./facts -prune -o -type f \
    ! -name '*.json' ! -name '*.md' ! -name '.*' -print0 | LC_ALL=C sort -z)
[ "${#media[@]}" -gt 0 ] || die "no media files under $corpus"

mode=link
n=0
rep=0
while [ "$n" -lt "$files" ]; do
    rep=$((rep + 1))
    dst="$tree/$(printf 'rep-%04d' "$rep")"
    for rel in "${media[@]}"; do
        [ "$n" -lt "$files" ] || break
        rel="${rel#./}"
        mkdir -p "$dst/$(dirname "$rel")"
        if [ "$mode" = link ] && ! ln "$corpus/$rel" "$dst/$rel" 2>/dev/null; then
            mode=copy   # other file system, or protected_hardlinks for a file we do not own
        fi
        if [ "$mode" = copy ]; then
            cp "$corpus/$rel" "$dst/$rel"
        fi
        n=$((n + 1))
    done
done
bytes="$(du -sbL "$tree" | awk '{print $1}')"
echo "tree: $tree  files: $n  corpus files: ${#media[@]}  replicas: $rep  mode: $mode  size: $((bytes / 1048576)) MiB" >&2
find "$tree" -type f -exec cat {} + >/dev/null        # warm the page cache for both tools

# --- timing -----------------------------------------------------------------------------------------
results=()
timeit() {  # label, command...
    local label="$1"; shift
    local t0 t1 status=0
    t0="$(date +%s.%N)"
    "$@" >/dev/null 2>"$tree.err" || status=$?
    t1="$(date +%s.%N)"
    local secs
    secs="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')"
    if [ "$status" -ne 0 ]; then
        echo "note: '$label' exited with status $status; last stderr lines:" >&2
        tail -n 3 "$tree.err" >&2 || true
    fi
    rm -f "$tree.err"
    results+=("$label|$secs|$status")
}

echo "timing shoebox ..." >&2
timeit "shoebox probe" "$shoebox" probe --format ndjson "$tree"
echo "timing exiftool ..." >&2
timeit "exiftool -json -r" exiftool -json -r -q "$tree"
if [ "$fast2" -eq 1 ]; then
    echo "timing exiftool -fast2 ..." >&2
    timeit "exiftool -fast2 -json -r" exiftool -fast2 -json -r -q "$tree"
fi

# --- report -----------------------------------------------------------------------------------------
printf '%-26s %8s %10s %10s %6s\n' tool files seconds 'files/s' exit
for r in "${results[@]}"; do
    IFS='|' read -r label secs status <<<"$r"
    awk -v l="$label" -v n="$n" -v s="$secs" -v st="$status" \
        'BEGIN { printf "%-26s %8d %10.3f %10.1f %6s\n", l, n, s, (s > 0 ? n / s : 0), st }'
done
IFS='|' read -r _ sb_secs sb_status <<<"${results[0]}"
for r in "${results[@]:1}"; do
    IFS='|' read -r label secs _ <<<"$r"
    awk -v l="$label" -v a="$sb_secs" -v b="$secs" \
        'BEGIN { if (a > 0) printf "speed ratio shoebox / %s: %.2fx (files/s; > 1 means shoebox is faster)\n", l, b / a }'
done
if [ "$sb_status" -ne 0 ]; then
    echo "warning: shoebox failed (exit $sb_status), its time is not meaningful" >&2
    exit 1
fi
