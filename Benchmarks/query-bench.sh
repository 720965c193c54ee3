#!/usr/bin/env bash
# Fetch benchmark on a synthetic catalog of N assets (default 1,000,000): an indexed predicate with a sort
# and limit 100, a count by subtype, and enumerating the whole result — wall time and peak RSS of each, in
# one run. Usage: Benchmarks/query-bench.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-1000000}"
SHOEBOX="${SHOEBOX:-.build/release/shoebox}"
[ -x "$SHOEBOX" ] || swift build -c release --product shoebox >/dev/null
work="$(mktemp -d "${TMPDIR:-/tmp}/shoebox-query-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir "$work/empty"
"$SHOEBOX" ingest --catalog "$work/c.sqlite" --progress none "$work/empty" >/dev/null

# Start-up: the whole process of commands that do no work — best of 10 wall times (fork to exit, measured by
# python, in milliseconds) and the peak RSS of one run.
startup() {  # name, then the shoebox arguments
  local name="$1"; shift
  local ms kb
  ms=$(python3 -c 'import subprocess, sys, time
best = 1e9
for _ in range(10):
    t = time.perf_counter(); subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    best = min(best, time.perf_counter() - t)
print(f"{best * 1000:.1f}")' "$SHOEBOX" "$@")
  /usr/bin/time -f "%M" -o "$work/rss" "$SHOEBOX" "$@" >/dev/null 2>&1
  kb=$(tail -1 "$work/rss")
  printf "%-44s %8s ms %8s MiB\n" "$name" "$ms" "$(awk -v k="$kb" 'BEGIN {printf "%.1f", k/1024}')"
}
echo "start-up ($(ldd "$SHOEBOX" | wc -l) shared objects linked)"
startup "--version" --version
startup "query --count (empty catalog)" query --count --catalog "$work/c.sqlite"
t0=$(date +%s.%N)
python3 Benchmarks/make-synthetic-catalog.py "$work/c.sqlite" "$N"
echo "generated in $(python3 -c "print(round($(date +%s.%N) - $t0, 1))") s"

run() {  # name, then the shoebox arguments
  local name="$1"; shift
  local out="$work/out" tv="$work/time"
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -v -o "$tv" "$SHOEBOX" "$@" --catalog "$work/c.sqlite" > "$out"
    local secs rss
    secs=$(awk -F': ' '/Elapsed \(wall clock\)/ {split($2, a, ":"); if (length(a) == 3) print a[1]*3600+a[2]*60+a[3]; else print a[1]*60+a[2]}' "$tv")
    rss=$(awk -F': ' '/Maximum resident/ {printf "%.1f", $2/1024}' "$tv")
    printf "%-44s %8s s  %8s MiB  %s\n" "$name" "$secs" "$rss" "$(head -c 60 "$out" | tr '\n' ' ')"
  else
    local s; s=$(date +%s.%N); "$SHOEBOX" "$@" --catalog "$work/c.sqlite" > "$out"
    printf "%-44s %8.3f s  %s\n" "$name" "$(python3 -c "print($(date +%s.%N) - $s)")" "$(head -c 60 "$out" | tr '\n' ' ')"
  fi
}

echo "catalog: $N synthetic assets"
run "predicate + sort + limit 100" query 'mediaType == image AND creationDate >= "2020-01-01"' --sort -creationDate --limit 100 --format ndjson
run "count all (default filters)" query --count
run "count by subtype (photoLive)" query 'mediaSubtypes CONTAINS photoLive' --count
run "count by subtype, bit test" query '(mediaSubtypes & 8) != 0' --count
run "enumerate the whole result (csv id)" query --all-bursts --format csv --fields localIdentifier
run "enumerate the whole result (ndjson)" query --all-bursts --format ndjson
run "stats" stats
# The goals of the short queries are in milliseconds, finer than /usr/bin/time's 10 ms: best of 10, as start-up.
startup "predicate + sort + limit 100, best of 10" query 'mediaType == image AND creationDate >= "2020-01-01"' --sort -creationDate --limit 100 --format ndjson --catalog "$work/c.sqlite"
startup "count by subtype (photoLive), best of 10" query 'mediaSubtypes CONTAINS photoLive' --count --catalog "$work/c.sqlite"
