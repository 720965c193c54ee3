#!/usr/bin/env bash
# Sharded ingest against one ingest of the same tree (issue 20; docs/scale.md):
#
#   Benchmarks/shard-bench.sh [-N FILES] [-s SHARDS] [-j JOBS] [-c CORPUS] [--no-build] [--keep]
#
#   -N FILES   files in the tree (default 100000): whole replicas of the corpus, each a top-level folder
#              (rep-0001/, rep-0002/, …), so shards get whole replicas by the hash of their name.
#   -s SHARDS  shards run at once as separate processes (default 4).
#   -j JOBS    --jobs of each shard (default: 1 when SHARDS ≥ cores, else cores / SHARDS); the single ingest
#              uses shoebox's default (the number of cores).
#   -c CORPUS  corpus root (default: $SHOEBOX_CORPUS, else <repo>/../shared/corpus); facts/, *.md and
#              assets.json are left out.
#   --no-build use the existing release binary ($SHOEBOX or <repo>/.build/release/shoebox).
#   --keep     keep the temporary directory.
#
# Reports wall time and peak RSS (/usr/bin/time -v "Maximum resident set size") of: one ingest of the whole
# tree; each shard (run together: the group's wall time is the slowest shard's); the merge into a new
# catalog; a second merge with nothing changed; and checks that the merged catalog holds as many assets as
# the single one. The tree is made of hard links (copies where linking fails); sources are only read.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
files=100000
shards=4
jobs=""
corpus="${SHOEBOX_CORPUS:-$repo/../shared/corpus}"
do_build=1
keep=0
while [ $# -gt 0 ]; do
    case "$1" in
        -N) files="$2"; shift 2 ;;
        -s) shards="$2"; shift 2 ;;
        -j) jobs="$2"; shift 2 ;;
        -c) corpus="$2"; shift 2 ;;
        --no-build) do_build=0; shift ;;
        --keep) keep=1; shift ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) echo "shard-bench.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done
[ -d "$corpus" ] || { echo "shard-bench.sh: no corpus at $corpus" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "shard-bench.sh: needs /usr/bin/time (Debian package time)" >&2; exit 1; }
cores="$(nproc)"
[ -n "$jobs" ] || jobs=$(( cores / shards > 0 ? cores / shards : 1 ))

if [ "$do_build" = 1 ]; then (cd "$repo" && swift build -c release --static-swift-stdlib --product shoebox >/dev/null); fi
bin="${SHOEBOX:-$repo/.build/release/shoebox}"
[ -x "$bin" ] || { echo "shard-bench.sh: no binary at $bin" >&2; exit 1; }

work="$(mktemp -d "${TMPDIR:-/tmp}/shard-bench.XXXXXX")"
[ "$keep" = 1 ] || trap 'rm -rf "$work"' EXIT
tree="$work/tree"
mkdir -p "$tree/rep-0001"
# One replica: the corpus's media and sidecars, linked file by file.
(cd "$corpus" && find . -type f ! -path './facts/*' ! -name '*.md' ! -name 'assets.json' -print0) |
    while IFS= read -r -d '' rel; do
        mkdir -p "$tree/rep-0001/$(dirname "$rel")"
        ln "$corpus/$rel" "$tree/rep-0001/$rel" 2>/dev/null || cp "$corpus/$rel" "$tree/rep-0001/$rel"
    done
per="$(find "$tree/rep-0001" -type f | wc -l)"
reps=$(( (files + per - 1) / per ))
for r in $(seq 2 "$reps"); do cp -al "$tree/rep-0001" "$tree/$(printf 'rep-%04d' "$r")"; done
total=$(( per * reps ))
echo "tree: $reps replicas × $per files = $total files; $shards shards × --jobs $jobs; $cores cores"

# measure NAME CMD…: runs CMD under /usr/bin/time -v; prints "NAME  wall s  peak MiB".
measure() {
    local name="$1"; shift
    local status=0
    /usr/bin/time -v -o "$work/$name.time" "$@" >"$work/$name.out" 2>"$work/$name.err" || status=$?
    [ "$status" -le 1 ] || { echo "shard-bench.sh: $name exited $status: $(tail -3 "$work/$name.err")" >&2; exit 1; }
    report "$name"
}
report() {
    awk -v name="$1" -F': ' '
        /Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; wall = s }
        /Maximum resident set size/ { rss = $2 / 1024 }
        END { printf "%-14s %8.1f s wall %8.0f MiB peak\n", name, wall, rss }' "$work/$1.time"
}

measure single "$bin" ingest "$tree" --catalog "$work/single.sqlite" --progress none
start=$(date +%s.%N)
pids=()
for i in $(seq 0 $((shards - 1))); do
    /usr/bin/time -v -o "$work/shard-$i.time" "$bin" ingest "$tree" --shard "$i/$shards" --jobs "$jobs" \
        --catalog "$work/shard-$i.sqlite" --progress none >"$work/shard-$i.out" 2>"$work/shard-$i.err" &
    pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || [ $? -le 1 ] || { echo "shard-bench.sh: a shard failed" >&2; exit 1; }; done
end=$(date +%s.%N)
for i in $(seq 0 $((shards - 1))); do report "shard-$i"; done
awk -v a="$start" -v b="$end" 'BEGIN { printf "%-14s %8.1f s wall (all shards, in parallel)\n", "shards", b - a }'
measure merge "$bin" merge "$work"/shard-*.sqlite --catalog "$work/all.sqlite"
measure remerge "$bin" merge "$work"/shard-*.sqlite --catalog "$work/all.sqlite"
count() { "$bin" stats --catalog "$1" --format json 2>/dev/null | tr ',' '\n' | awk -F: '/"assets"/ { gsub(/[^0-9]/, "", $2); print $2; exit }'; }
a="$(count "$work/single.sqlite")"; b="$(count "$work/all.sqlite")"
echo "assets: single $a, merged $b"
du -sh "$work"/single.sqlite "$work"/all.sqlite "$work"/shard-0.sqlite 2>/dev/null | awk '{ printf "size %s %s\n", $2, $1 }' | sed "s|$work/||"
[ "$a" = "$b" ] || { echo "shard-bench.sh: the merged catalog holds $b assets, the single one $a" >&2; exit 1; }
