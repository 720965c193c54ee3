#!/usr/bin/env bash
# Instructions a first ingest executes, counted by callgrind: the same count for the same binary and files
# on every run, where this project's shared 2-core machines move wall and CPU time by ±15 % between two runs
# of one binary (Benchmarks/README.md, session 20). For comparing builds; not a speed figure.
#
#   Benchmarks/instructions-bench.sh [-r REPLICAS] [-m MODE] [-c CORPUS] BINARY [BINARY ...]
#
#   -r REPLICAS  whole replicas of the corpus in the tree (default 3, ~300 files: callgrind runs ~50x slower)
#   -m MODE      the --hash mode (default none: the kernel's copy that a full hash adds is not counted)
#   -c CORPUS    corpus root (default: $SHOEBOX_CORPUS, else <repo>/../shared/corpus); facts/, *.md,
#                assets.json and dot files are left out
#
# Each binary runs as a stripped copy (valgrind cannot read the debug information of a Swift binary linked
# with --static-swift-stdlib) into a fresh catalog, threads serialized by valgrind; the line per binary is
# the user-space instructions ("Collected") and the ratio to the first binary. The tree is hard links (copies
# where linking fails); sources are only read. Needs valgrind and binutils (Debian: valgrind, binutils).
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
corpus="${SHOEBOX_CORPUS:-$repo/../shared/corpus}"
replicas=3
mode=none
die() { echo "instructions-bench.sh: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
    case "$1" in
        -r) replicas="$2"; shift 2 ;;
        -m) mode="$2"; shift 2 ;;
        -c) corpus="$2"; shift 2 ;;
        -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) die "unknown option $1" ;;
        *) break ;;
    esac
done
[ $# -gt 0 ] || die "name at least one binary (e.g. .build/release/shoebox)"
case "$replicas" in ''|*[!0-9]*|0) die "-r needs a positive number" ;; esac
case "$mode" in full|sampled|none) ;; *) die "-m: unknown hash mode '$mode' (full, sampled, none)" ;; esac
[ -d "$corpus" ] || die "no corpus at '$corpus' (set SHOEBOX_CORPUS or use -c)"
command -v valgrind >/dev/null || die "valgrind not found (apt-get install valgrind)"
command -v strip >/dev/null || die "strip not found (apt-get install binutils)"
for b in "$@"; do [ -x "$b" ] || die "$b is not executable"; done

# The copies do not sit beside a build's gazetteer: name it, so places are derived as in a normal run.
if [ -z "${SHOEBOX_GAZETTEER:-}" ] && [ -f "$repo/.build/gazetteer/gazetteer.bin" ]; then
    export SHOEBOX_GAZETTEER="$repo/.build/gazetteer/gazetteer.bin"
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/shoebox-instructions.XXXXXX")"
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

# The tree: one replica linked file by file, the others `cp -al` of it.
first="$work/tree/rep-0001"
(cd "$corpus" && find . -path ./facts -prune -o -type f ! -name '*.md' ! -name 'assets.json' ! -name '.*' -print0) |
    while IFS= read -r -d '' rel; do
        rel="${rel#./}"
        mkdir -p "$first/$(dirname "$rel")"
        ln "$corpus/$rel" "$first/$rel" 2>/dev/null || cp -p "$corpus/$rel" "$first/$rel"
    done
for r in $(seq 2 "$replicas"); do cp -al "$first" "$work/tree/$(printf 'rep-%04d' "$r")"; done
files="$(find "$work/tree" -type f | wc -l)"
echo "tree: $files files ($replicas replicas), --hash $mode" >&2

base=""
printf '%-48s %16s %8s\n' "binary" "instructions" "ratio"
n=0
for b in "$@"; do
    n=$((n + 1))
    copy="$work/shoebox-$n"
    strip -o "$copy" "$b"
    rm -f "$work/catalog.sqlite"*
    valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.$n" \
        "$copy" ingest "$work/tree" --catalog "$work/catalog.sqlite" --progress none --hash "$mode" \
        >/dev/null 2>"$work/valgrind.$n" || true
    count="$(sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p' "$work/valgrind.$n" | tail -1)"
    [ -n "$count" ] || { tail -5 "$work/valgrind.$n" >&2; die "callgrind gave no count for $b"; }
    [ -n "$base" ] || base="$count"
    printf '%-48s %16s %8s\n' "$b" "$count" "$(awk -v a="$count" -v b="$base" 'BEGIN { printf "%.4f", a / b }')"
done
