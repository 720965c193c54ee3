#!/usr/bin/env bash
# A first ingest from the disk, not from the page cache: the OS caches are dropped before every run.
#
#   Benchmarks/cold-bench.sh [-n FILES] [-r REPEATS] [-j "JOBS ..."] [-m MODES] [-c CORPUS] [--keep]
#
#   -n FILES    files in the tree (default 3000): replicas of the corpus, each file a copy of its own (hard
#               links would share one inode, read from the disk once and from the cache after that).
#   -r REPEATS  rounds (default 3); the contenders take turns within a round; medians are reported.
#   -j JOBS     the --jobs values to compare (default: "C 2C", the cores and twice the cores).
#   -m MODES    the --hash modes (default "full").
#   -c CORPUS   corpus root (default: $SHOEBOX_CORPUS, else <repo>/../shared/corpus).
#   --keep      keep the temporary directory (the tree is as large as the files it copies: ~1 GB a 1,000).
#
# Contenders: the full-read floor (`cat` of every file through `xargs -P <cores>` and `-P <2 cores>`), then
# `shoebox ingest --hash MODE --jobs J` into a fresh catalog for each mode and jobs value. Each run drops
# the page cache, dentries and inodes first (`sync; echo 3 > /proc/sys/vm/drop_caches`: needs root), and
# reports wall and CPU seconds, and what the block devices read (/proc/diskstats: sectors and requests).
# The binary is $SHOEBOX or <repo>/.build/release/shoebox (build it first: `make release`).
# Sources are only read. Needs bash, GNU coreutils/findutils, awk, /usr/bin/time (Debian package `time`).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
files=3000
repeats=3
cores="$(nproc)"
jobs_list="$cores $((2 * cores))"
modes="full"
corpus="${SHOEBOX_CORPUS:-$repo/../shared/corpus}"
keep=0
while [ $# -gt 0 ]; do
    case "$1" in
        -n) files="$2"; shift 2 ;;
        -r) repeats="$2"; shift 2 ;;
        -j) jobs_list="$2"; shift 2 ;;
        -m) modes="$2"; shift 2 ;;
        -c) corpus="$2"; shift 2 ;;
        --keep) keep=1; shift ;;
        -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
        *) echo "cold-bench.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done
die() { echo "cold-bench.sh: $*" >&2; exit 1; }
isnum() { case "$1" in ''|*[!0-9]*) return 1 ;; *) [ "$1" -gt 0 ] ;; esac; }
isnum "$files" || die "-n needs a positive number"
isnum "$repeats" || die "-r needs a positive number"
for j in $jobs_list; do isnum "$j" || die "-j: '$j' is not a positive number"; done
for m in $modes; do case "$m" in full|sampled|none) ;; *) die "-m: unknown hash mode '$m' (full, sampled, none)" ;; esac; done
shoebox="${SHOEBOX:-$repo/.build/release/shoebox}"
[ -x "$shoebox" ] || die "$shoebox is not executable (make release, or set SHOEBOX)"
[ -d "$corpus" ] || die "no corpus at '$corpus' (set SHOEBOX_CORPUS or use -c)"
[ -x /usr/bin/time ] || die "/usr/bin/time not found (apt-get install time)"
if ! { sync && echo 3 > /proc/sys/vm/drop_caches; } 2>/dev/null; then
    echo "cold-bench.sh: cannot drop the page cache (/proc/sys/vm/drop_caches needs root): nothing measured" >&2
    exit 2
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/shoebox-cold-bench.XXXXXX")"
cleanup() { if [ "$keep" -eq 0 ]; then rm -rf "$work"; else echo "kept $work" >&2; fi; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# The tree: the corpus's files (facts/, *.md and assets.json left out), copied replica after replica.
mapfile -d '' media < <(cd "$corpus" && find . -path ./facts -prune -o -type f \
    ! -name '*.md' ! -name 'assets.json' ! -name '.*' -print0 | LC_ALL=C sort -z)
[ "${#media[@]}" -gt 0 ] || die "no media files under $corpus"
tree="$work/tree"
n=0
rep=0
while [ "$n" -lt "$files" ]; do
    rep=$((rep + 1))
    dst="$tree/$(printf 'rep-%04d' "$rep")"
    for rel in "${media[@]}"; do
        [ "$n" -lt "$files" ] || break
        rel="${rel#./}"
        mkdir -p "$dst/$(dirname "$rel")"
        cp "$corpus/$rel" "$dst/$rel"
        n=$((n + 1))
    done
done
sync
echo "tree: $n files (copies), $(( $(du -sb "$tree" | awk '{print $1}') / 1048576 )) MiB" >&2

# Sectors and requests read by the whole disks (those /sys/block lists, not their partitions; not loop,
# RAM, optical or device-mapper devices, whose reads land on a disk counted already).
disks="$(ls /sys/block | grep -Ev '^(loop|ram|zram|sr|dm-|md)' | tr '\n' ' ')"
device_reads() { awk -v disks=" $disks" 'index(disks, " " $3 " ") { s += $6; r += $4 } END { print s + 0, r + 0 }' /proc/diskstats; }
rows=()
# run LABEL COMMAND...: drop the caches, run, record wall, CPU, sectors and requests read.
run() {
    local label="$1"; shift
    sync
    echo 3 > /proc/sys/vm/drop_caches
    local s0 r0 s1 r1 status=0
    read -r s0 r0 < <(device_reads)
    /usr/bin/time -f '%e %U %S' -o "$work/time" "$@" >/dev/null 2>"$work/err" || status=$?
    read -r s1 r1 < <(device_reads)
    local wall user sys
    read -r wall user sys < <(tail -n 1 "$work/time")
    if [ "$status" -gt 1 ]; then echo "note: '$label' exited with status $status: $(tail -n 1 "$work/err")" >&2; fi
    rows+=("$label|$wall|$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')|$(((s1 - s0) / 2048))|$((r1 - r0))")
    echo "  $label: $wall s (CPU $user + $sys s), read $(((s1 - s0) / 2048)) MiB in $((r1 - r0)) requests" >&2
}

for round in $(seq "$repeats"); do
    echo "round $round" >&2
    run "cat -P $cores (full-read floor)" sh -c "find '$tree' -type f -print0 | xargs -0 -P $cores -n 64 cat"
    run "cat -P $((2 * cores))" sh -c "find '$tree' -type f -print0 | xargs -0 -P $((2 * cores)) -n 64 cat"
    for m in $modes; do
        for j in $jobs_list; do
            rm -f "$work/c.sqlite"*
            run "shoebox --hash $m --jobs $j" "$shoebox" ingest "$tree" --catalog "$work/c.sqlite" --hash "$m" --jobs "$j" --progress none
        done
    done
done

echo
echo "shoebox: $shoebox   cores: $cores   files: $n   rounds: $repeats (time: median, min-max; reads: the last round)"
printf '%s\n' "${rows[@]}" | awk -F'|' '
    function sorted(l, col, m,    a, b, x, v, out) {
        for (a = 1; a <= m; a++) v[a] = val[col, l, a]
        for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++) if (v[b] < v[a]) { x = v[a]; v[a] = v[b]; v[b] = x }
        med = (m % 2) ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
        lo = v[1]; hi = v[m]
    }
    { if (!($1 in n)) order[++k] = $1; n[$1]++; val["w", $1, n[$1]] = $2; val["c", $1, n[$1]] = $3; mib[$1] = $4; req[$1] = $5 }
    END {
        printf "%-34s %18s %8s %9s %9s\n", "run", "wall s", "CPU s", "read MiB", "requests"
        for (i = 1; i <= k; i++) {
            l = order[i]
            sorted(l, "c", n[l]); cpu = med
            sorted(l, "w", n[l])
            if (i == 1) floor = med
            printf "%-34s %6.2f (%.2f-%.2f) %8.2f %9d %9d\n", l, med, lo, hi, cpu, mib[l], req[l]
            if (l ~ /^shoebox/) ratio[l] = floor / med
        }
        print ""
        for (i = 1; i <= k; i++) if (order[i] in ratio) printf "  %-32s %5.1f%% of the cold full-read floor\n", order[i], 100 * ratio[order[i]]
    }'
