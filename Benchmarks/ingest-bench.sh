#!/usr/bin/env bash
# Ingest throughput, incremental re-ingest cost and peak memory of `shoebox ingest`.
#
#   Benchmarks/ingest-bench.sh [-n FILES] [-N BIG] [-r REPEATS] [-m MODES] [-c CORPUS] [-j JOBS] [--no-big]
#                              [--no-build] [--keep]
#
#   -n FILES   files in the small tree (default 3000), in one run: the full-read floor (every byte of every
#              file read by `cat` through `xargs -P <cores>`), exiftool -json -r, shoebox ingest into a fresh
#              catalog with each --hash mode, an unchanged re-ingest, a re-ingest with every replica folder
#              renamed (its files moved, names and versions kept); then the ratios to cat and exiftool, and
#              the big first ingest against the small one (CPU per file, peak RSS).
#   -N BIG     files in the big tree (default 100000, or $N): a first ingest and an unchanged re-ingest.
#   -r REPEATS runs of each small-tree contender (default 1); the median is reported.
#   -m MODES   the --hash modes for the small tree (default "full sampled none"); the big tree uses the first.
#   -c CORPUS  corpus root (default: $SHOEBOX_CORPUS, else <repo>/../shared/corpus). facts/, *.md and
#              assets.json are skipped; everything else (Takeout JSON, AAE, XMP) is kept.
#   -j JOBS    passed as --jobs (default: shoebox's default, the number of cores).
#   --no-big   skip the big tree.
#   --no-build use the existing binary ($SHOEBOX or <repo>/.build/release/shoebox) without building.
#   --keep     keep the temporary directory afterwards.
#
# Trees are made of hard links (copies when linking fails): one replica of the corpus is linked file by
# file into rep-0001/, further replicas are `cp -al` of it, the last one partial. Each replica keeps the
# corpus layout, so Live Photo halves, edits and sidecars stay together. Sources are only read.
# INGEST_BENCH_NO_HASH_OPTION=1 leaves `--hash` out (a binary from before it: the modes are then all "full").
# Peak memory is /usr/bin/time -v's "Maximum resident set size"; without /usr/bin/time (Debian package
# `time`), or with INGEST_BENCH_POLL_RSS=1, it is VmHWM from /proc/<pid>/status, polled every 50 ms (a lower
# bound). Nothing is installed.
# Needs bash, GNU coreutils/findutils, awk, exiftool (Debian: libimage-exiftool-perl) and a Swift toolchain
# unless --no-build.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"

small=3000
repeats=1
modes="full sampled none"
big="${N:-100000}"
corpus="${SHOEBOX_CORPUS:-$repo/../shared/corpus}"
jobs=""
do_big=1
do_build=1
keep=0
while [ $# -gt 0 ]; do
    case "$1" in
        -n) small="$2"; shift 2 ;;
        -N) big="$2"; shift 2 ;;
        -r) repeats="$2"; shift 2 ;;
        -m) modes="$2"; shift 2 ;;
        -c) corpus="$2"; shift 2 ;;
        -j) jobs="$2"; shift 2 ;;
        --no-big) do_big=0; shift ;;
        --no-build) do_build=0; shift ;;
        --keep) keep=1; shift ;;
        -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
        *) echo "ingest-bench.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done

die() { echo "ingest-bench.sh: $*" >&2; exit 1; }
isnum() { case "$1" in ''|*[!0-9]*) return 1 ;; *) [ "$1" -gt 0 ] ;; esac; }
isnum "$small" || die "-n needs a positive number"
isnum "$big" || die "-N needs a positive number"
isnum "$repeats" || die "-r needs a positive number"
for m in $modes; do case "$m" in full|sampled|none) ;; *) die "-m: unknown hash mode '$m' (full, sampled, none)" ;; esac; done
read -r big_mode _ <<<"$modes"
[ -z "$jobs" ] || isnum "$jobs" || die "-j needs a positive number"
[ -d "$corpus" ] || die "no corpus at '$corpus' (set SHOEBOX_CORPUS or use -c)"
command -v exiftool >/dev/null || die "exiftool not found (apt-get install libimage-exiftool-perl)"
corpus="$(cd "$corpus" && pwd)"

# --- (a) release build ------------------------------------------------------------------------------
shoebox="${SHOEBOX:-$repo/.build/release/shoebox}"
if [ "$do_build" -eq 1 ] && [ -z "${SHOEBOX:-}" ]; then
    command -v swift >/dev/null || die "no swift toolchain (use --no-build with \$SHOEBOX)"
    echo "building shoebox (swift build -c release) ..." >&2
    t0="$(date +%s.%N)"
    (cd "$repo" && swift build -c release --product shoebox >&2)
    echo "build: $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s" >&2
fi
[ -x "$shoebox" ] || die "$shoebox is not executable"
jobarg=()
hash_opt() { [ -n "${INGEST_BENCH_NO_HASH_OPTION:-}" ] || echo "--hash $1"; }
[ -z "$jobs" ] || jobarg=(--jobs "$jobs")

# --- temp dir and cleanup ---------------------------------------------------------------------------
work="$(mktemp -d "${TMPDIR:-/tmp}/shoebox-ingest-bench.XXXXXX")"
poll_pid=""
cleanup() {
    if [ -n "$poll_pid" ]; then kill "$poll_pid" 2>/dev/null || true; fi
    if [ "$keep" -eq 0 ]; then rm -rf "$work"; else echo "kept $work" >&2; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mapfile -d '' media < <(cd "$corpus" && find . -path ./facts -prune -o -type f \
    ! -name '*.md' ! -name 'assets.json' ! -name '.*' -print0 | LC_ALL=C sort -z)
[ "${#media[@]}" -gt 0 ] || die "no media files under $corpus"
per="${#media[@]}"

link_mode=link
# make_tree DIR FILES: replicas of the corpus, hard-linked.
make_tree() {
    local dir="$1" files="$2" first="$1/rep-0001" n rep rel
    mkdir -p "$dir"
    n=0
    for rel in "${media[@]}"; do
        [ "$n" -lt "$files" ] || break
        rel="${rel#./}"
        mkdir -p "$first/$(dirname "$rel")"
        if [ "$link_mode" = link ] && ! ln "$corpus/$rel" "$first/$rel" 2>/dev/null; then
            link_mode=copy   # other file system, or protected_hardlinks for a file we do not own
        fi
        [ "$link_mode" = link ] || cp -p "$corpus/$rel" "$first/$rel"
        n=$((n + 1))
    done
    rep=1
    while [ $((n + per)) -le "$files" ]; do   # whole replicas: links to rep-0001 (same file system)
        rep=$((rep + 1))
        cp -al "$first" "$dir/$(printf 'rep-%04d' "$rep")"
        n=$((n + per))
    done
    if [ "$n" -lt "$files" ]; then           # a partial last replica
        rep=$((rep + 1))
        local dst
        dst="$dir/$(printf 'rep-%04d' "$rep")"
        for rel in "${media[@]}"; do
            [ "$n" -lt "$files" ] || break
            rel="${rel#./}"
            mkdir -p "$dst/$(dirname "$rel")"
            ln "$first/$rel" "$dst/$rel"
            n=$((n + 1))
        done
    fi
    echo "$n"
}

# --- measurement ------------------------------------------------------------------------------------
have_time=0
[ -z "${INGEST_BENCH_POLL_RSS:-}" ] && [ -x /usr/bin/time ] && /usr/bin/time -v true >/dev/null 2>&1 && have_time=1
rows=()
last_out=""
# measure LABEL FILES COMMAND...: wall time, peak RSS, exit status; stdout kept in $work/LABEL.out.
measure() {
    local label="$1" files="$2"; shift 2
    local slug out t0 t1 status=0 rss=0 cpu=0
    slug="$(echo "$label" | tr -c 'A-Za-z0-9' '_')"
    out="$work/$slug.out"
    t0="$(date +%s.%N)"
    if [ "$have_time" -eq 1 ]; then
        /usr/bin/time -v -o "$work/$slug.time" "$@" >"$out" 2>"$work/$slug.err" || status=$?
        t1="$(date +%s.%N)"
        rss="$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$work/$slug.time")"
        cpu="$(awk -F': ' '/User time \(seconds\)|System time \(seconds\)/ { s += $2 } END { printf "%.2f", s }' "$work/$slug.time")"
    else
        "$@" >"$out" 2>"$work/$slug.err" &
        local pid=$! hwm
        while kill -0 "$pid" 2>/dev/null; do
            hwm="$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)"
            if [ -n "$hwm" ] && [ "$hwm" -gt "$rss" ]; then rss="$hwm"; fi
            sleep 0.05
        done
        wait "$pid" || status=$?
        t1="$(date +%s.%N)"
    fi
    local secs
    secs="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')"
    if [ "$status" -gt 1 ] || { [ "$status" -eq 1 ] && [[ "$label" != shoebox* ]]; }; then
        echo "note: '$label' exited with status $status; last stderr lines:" >&2
        tail -n 3 "$work/$slug.err" >&2 || true
    fi
    rows+=("$label|$files|$secs|${rss:-0}|$status|$cpu")
    last_out="$out"
    echo "  $label: $secs s (CPU $cpu s), peak RSS $((${rss:-0} / 1024)) MiB, exit $status" >&2
}
summary_of() { sed -n '1,3p' "$1" | sed 's/^/    /' >&2; }

# --- (b) small tree: the full-read floor, exiftool, shoebox ingest per --hash mode ------------------------
small_tree="$work/small"
echo "making the small tree ($small files) ..." >&2
small_n="$(make_tree "$small_tree" "$small")"
bytes="$(du -sbL "$small_tree" | awk '{print $1}')"
echo "small tree: $small_n files, $((bytes / 1048576)) MiB, $link_mode" >&2
find "$small_tree" -type f -exec cat {} + >/dev/null   # warm the page cache for every contender

echo "timing ($repeats run(s) each) ..." >&2
for rep in $(seq "$repeats"); do
    # Every byte of every file, by path (hard links are read once per path, as the tools read them).
    measure "cat (full-read floor)" "$small_n" sh -c "find '$small_tree' -type f -print0 | xargs -0 -P $(nproc) -n 64 cat >/dev/null"
    measure "exiftool -json -r" "$small_n" exiftool -json -r -q "$small_tree"
    for m in $modes; do
        rm -f "$work/small-$m.sqlite"*
        measure "shoebox ingest --hash $m" "$small_n" "$shoebox" ingest "$small_tree" --catalog "$work/small-$m.sqlite" $(hash_opt "$m") --progress none "${jobarg[@]}"
        [ "$rep" -gt 1 ] || summary_of "$last_out"
    done
done
# --- (c) unchanged re-ingest -------------------------------------------------------------------------
read -r first_mode _ <<<"$modes"
measure "shoebox re-ingest (unchanged)" "$small_n" "$shoebox" ingest "$small_tree" --catalog "$work/small-$first_mode.sqlite" $(hash_opt "$first_mode") --progress none "${jobarg[@]}"
summary_of "$last_out"
# Every replica folder renamed (a folder renamed in a file manager, "Camera" → "Camera 2023"): each file is at
# a new path with its name and version kept; the assets keep their identifiers.
for d in "$small_tree"/rep-*; do mv "$d" "$d renamed"; done
measure "shoebox re-ingest (folders renamed)" "$small_n" "$shoebox" ingest "$small_tree" --catalog "$work/small-$first_mode.sqlite" $(hash_opt "$first_mode") --progress none "${jobarg[@]}"
summary_of "$last_out"
for d in "$small_tree"/rep-*" renamed"; do mv "$d" "${d% renamed}"; done

# --- (d) big tree ----------------------------------------------------------------------------------
if [ "$do_big" -eq 1 ]; then
    big_tree="$work/big"
    echo "making the big tree ($big files) ..." >&2
    t0="$(date +%s.%N)"
    big_n="$(make_tree "$big_tree" "$big")"
    echo "big tree: $big_n files in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s" >&2
    measure "shoebox ingest big --hash $big_mode" "$big_n" "$shoebox" ingest "$big_tree" --catalog "$work/big.sqlite" $(hash_opt "$big_mode") --progress none "${jobarg[@]}"
    summary_of "$last_out"
    measure "shoebox re-ingest big (unchanged)" "$big_n" "$shoebox" ingest "$big_tree" --catalog "$work/big.sqlite" $(hash_opt "$big_mode") --progress none "${jobarg[@]}"
    summary_of "$last_out"
    catalog_bytes="$(du -cb "$work/big.sqlite"* | awk 'END { print $1 }')"
    echo "big catalog: $((catalog_bytes / 1048576)) MiB (with WAL)" >&2
fi

# --- (f) report -------------------------------------------------------------------------------------
# Repeated labels are folded into their median time (and their largest peak RSS; the scale line compares the
# big tree's one run with the small tree's median peak, like with like).
echo
echo "shoebox: $shoebox   cores: $(nproc)   jobs: ${jobs:-default}   runs: $repeats (median)   peak RSS: $([ "$have_time" -eq 1 ] && echo '/usr/bin/time -v' || echo 'VmHWM polling')"
table="$(printf '%s\n' "${rows[@]}" | awk -F'|' '
    # The median of column col over the m runs of label l.
    function median(col, l, m,    a, b, x, v) {
        for (a = 1; a <= m; a++) v[a] = val[col, l, a]
        for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++) if (v[b] < v[a]) { x = v[a]; v[a] = v[b]; v[b] = x }
        return (m % 2) ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
    }
    { if (!($1 in n)) { order[++k] = $1 }; n[$1]++; files[$1] = $2
      val["t", $1, n[$1]] = $3; val["c", $1, n[$1]] = $6; val["r", $1, n[$1]] = $4
      if ($4 > rss[$1]) rss[$1] = $4; if ($5 > st[$1]) st[$1] = $5 }
    END {
        for (i = 1; i <= k; i++) {
            l = order[i]; m = n[l]
            printf "%s|%d|%.3f|%d|%d|%.2f|%d\n", l, files[l], median("t", l, m), rss[l], st[l], median("c", l, m), median("r", l, m)
        }
    }')"
printf '%-36s %8s %10s %10s %8s %12s %5s\n' run files seconds 'files/s' 'CPU s' 'peak RSS MiB' exit
while IFS='|' read -r label files secs rss status cpu _; do
    awk -v l="$label" -v n="$files" -v s="$secs" -v m="$rss" -v st="$status" -v c="$cpu" \
        'BEGIN { printf "%-36s %8d %10.3f %10.1f %8.2f %12.1f %5s\n", l, n, s, (s > 0 ? n / s : 0), c, m / 1024, st }'
done <<<"$table"
secs_of() { awk -F'|' -v l="$1" '$1 == l { print $3 }' <<<"$table"; }
cpu_of() { awk -F'|' -v l="$1" '$1 == l { print $6 }' <<<"$table"; }
cat_secs="$(secs_of "cat (full-read floor)")"
ex_secs="$(secs_of "exiftool -json -r")"
ex_cpu="$(cpu_of "exiftool -json -r")"
echo
echo "ratios (same files, same run; > 1x means shoebox is faster than exiftool; % of the full-read floor = cat time / ingest time;"
echo "CPU: exiftool's CPU seconds / shoebox's, steadier than wall time on a shared machine):"
failed=0
for m in $modes; do
    sb_secs="$(secs_of "shoebox ingest --hash $m")"
    sb_cpu="$(cpu_of "shoebox ingest --hash $m")"
    awk -v m="$m" -v a="$sb_secs" -v c="$cat_secs" -v e="$ex_secs" -v ac="$sb_cpu" -v ec="$ex_cpu" \
        'BEGIN { if (a > 0) printf "  --hash %-8s %6.1f%% of the full-read floor   %6.1fx exiftool   CPU %6.1fx exiftool, %.2f ms/file\n", m, 100 * c / a, e / a, (ac > 0 ? ec / ac : 0), 1000 * ac / '"$small_n"' }'
    st="$(awk -F'|' -v l="shoebox ingest --hash $m" '$1 == l { print $5 }' <<<"$table")"
    if [ "${st:-0}" -gt 1 ]; then echo "warning: shoebox ingest --hash $m failed (exit $st), its time is not meaningful" >&2; failed=1; fi
done
# The scale goals (issue 17): a first ingest of the big tree costs no more per file than of the small one,
# and its peak memory is flat.
rss_of() { awk -F'|' -v l="$1" '$1 == l { print $7 }' <<<"$table"; }  # the median peak
big_cpu="$(cpu_of "shoebox ingest big --hash $big_mode")"
if [ -n "$big_cpu" ]; then
    big_files="$(awk -F'|' -v l="shoebox ingest big --hash $big_mode" '$1 == l { print $2 }' <<<"$table")"
    awk -v bc="$big_cpu" -v bn="$big_files" -v sc="$(cpu_of "shoebox ingest --hash $big_mode")" -v sn="$small_n" \
        -v br="$(rss_of "shoebox ingest big --hash $big_mode")" -v sr="$(rss_of "shoebox ingest --hash $big_mode")" -v m="$big_mode" \
        'BEGIN { if (bn > 0 && sn > 0 && sc > 0 && sr > 0)
            printf "scale (--hash %s, %d against %d files): CPU %.2f against %.2f ms/file (%.2fx), peak RSS %.0f against %.0f MiB (%.2fx; medians)\n",
                m, bn, sn, 1000 * bc / bn, 1000 * sc / sn, (bc / bn) / (sc / sn), br / 1024, sr / 1024, br / sr }'
fi
exit "$failed"
