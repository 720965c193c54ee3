#!/usr/bin/env bash
# Cost of re-deriving a catalog from its stored facts (issue 14): no source file is read.
#
#   Benchmarks/rederive-bench.sh [-N FILES] [-c CORPUS] [--no-build] [--keep]
#
#   -N FILES   files in the tree (default 134000, about 100k assets: the corpus has 79 assets in 106 files).
#   -c CORPUS  corpus root (default: $SHOEBOX_CORPUS, else <repo>/../shared/corpus).
#   --no-build use the existing binary ($SHOEBOX or <repo>/.build/release/shoebox).
#   --keep     keep the temporary directory.
#
# Steps, one run: a hard-linked tree of replicas of the corpus (facts/ and docs left out); one ingest into a
# fresh catalog; then, with the tree moved away (as an unmounted NAS), `shoebox rederive` three times:
# same rules (nothing changes: the pure cost of decoding facts, classifying, assembling and comparing),
# the test-only rules variant (screenshots not recognised: two updates per replica), and back. Time and
# peak RSS (/usr/bin/time -v, Debian package `time`) for each.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
N=134000
corpus="${SHOEBOX_CORPUS:-$repo/../shared/corpus}"
build=1
keep=0
while [ $# -gt 0 ]; do
    case "$1" in
        -N) N="$2"; shift 2 ;;
        -c) corpus="$2"; shift 2 ;;
        --no-build) build=0; shift ;;
        --keep) keep=1; shift ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        *) echo "rederive-bench.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
shoebox="${SHOEBOX:-$repo/.build/release/shoebox}"
if [ "$build" = 1 ]; then (cd "$repo" && swift build -c release --product shoebox >/dev/null); fi
[ -x "$shoebox" ] || { echo "no binary at $shoebox" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
corpus="$(cd "$corpus" && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/shoebox-rederive.XXXXXX")"
[ "$keep" = 1 ] || trap 'rm -rf "$work"' EXIT

# One replica linked file by file, the rest `cp -al` of it.
mkdir -p "$work/tree/rep-00001"
(cd "$corpus" && find . -type f ! -path './facts/*' ! -name '*.md' ! -name assets.json -print0) |
    while IFS= read -r -d '' f; do mkdir -p "$work/tree/rep-00001/$(dirname "$f")"; ln "$corpus/$f" "$work/tree/rep-00001/$f" 2>/dev/null || cp "$corpus/$f" "$work/tree/rep-00001/$f"; done
per=$(find "$work/tree/rep-00001" -type f | wc -l)
reps=$(( (N + per - 1) / per ))
for i in $(seq 2 "$reps"); do cp -al "$work/tree/rep-00001" "$work/tree/$(printf 'rep-%05d' "$i")"; done
files=$(( per * reps ))

measure() {  # label, then the command; prints label, seconds, peak MiB
    local label="$1"; shift
    local log="$work/time.log"
    /usr/bin/time -v -o "$log" "$@" > "$work/out.txt" 2>&1 || true
    local secs rss
    secs=$(awk -F': ' '/Elapsed \(wall clock\)/ { n=split($2, p, ":"); s=0; for (i=1;i<=n;i++) s=s*60+p[i]; print s }' "$log")
    rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2/1024 }' "$log")
    printf '%-44s %8.2f s %7s MiB   %s\n' "$label" "$secs" "$rss" "$(grep -m1 -E 'rederive run|assets inserted' "$work/out.txt" | tail -c 100)"
    grep -E '^  [a-zA-Z]+: [0-9]+ ' "$work/out.txt" | head -3 | sed 's/^/      /' || true
}

echo "tree: $files files ($reps replicas of $per), binary $shoebox"
measure "ingest (first, fresh catalog)" "$shoebox" ingest --catalog "$work/c.sqlite" --progress none "$work/tree"
assets=$("$shoebox" query --catalog "$work/c.sqlite" --count 2>/dev/null || echo "?")
echo "assets: $assets; catalog $(du -h "$work/c.sqlite" | cut -f1)"
mv "$work/tree" "$work/away"   # the roots go offline
measure "rederive, same rules (no change)" "$shoebox" rederive --catalog "$work/c.sqlite"
measure "rederive, rules variant (2 updates/replica)" env SHOEBOX_TEST_RULES_VARIANT=1 "$shoebox" rederive --catalog "$work/c.sqlite"
measure "rederive, back to the rules" "$shoebox" rederive --catalog "$work/c.sqlite"
