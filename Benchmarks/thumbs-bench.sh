#!/usr/bin/env bash
# `shoebox thumbnails` against `vipsthumbnail` on the same images, in one run.
#
#   Benchmarks/thumbs-bench.sh [-c CORPUS] [-s SIZES] [-r REPEATS] [--keep]
#
#   -c CORPUS   a tree of photos (default: $SHOEBOX_CORPUS, else <repo>/../shared/corpus)
#   -s SIZES    thumbnail sizes, comma-separated (default 256; fit, JPEG Q85, metadata stripped, sRGB)
#   -r REPEATS  runs of each contender; the fastest is reported (default 3)
#   --keep      keep the work directory
#
# Four contenders render the same images (the photo resources of the non-RAW image assets that vipsthumbnail
# can read, so failures cost neither side; RAWs are left out because vipsthumbnail renders their first TIFF
# directory, often a tiny preview, which shoebox refuses), from a warm page cache:
#   shoebox -j N       `shoebox thumbnails` at its default parallelism (N = cores)
#   shoebox -j 1       the same on one core
#   vipsthumbnail seq  one vipsthumbnail process per file and size, one after another (a shell loop)
#   vipsthumbnail xargs-P N  the same processes, N at once (`xargs -P N -n 1`)
# The tree is ingested first (not timed). shoebox's time includes its start-up, opening the catalog and
# fetching; each vipsthumbnail process pays its own start-up. libvips' own worker threads are left at
# their default for vipsthumbnail (shoebox sets one per pipeline and runs pipelines in parallel).
# Binary: $SHOEBOX, else <repo>/.build/release/shoebox (built with `swift build -c release` if missing).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
corpus="${SHOEBOX_CORPUS:-$repo/../shared/corpus}"
sizes=256
repeats=3
keep=0
while [ $# -gt 0 ]; do
    case "$1" in
        -c) corpus="$2"; shift 2 ;;
        -s) sizes="$2"; shift 2 ;;
        -r) repeats="$2"; shift 2 ;;
        --keep) keep=1; shift ;;
        *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done
command -v vipsthumbnail >/dev/null || { echo "vipsthumbnail not found (Debian: libvips-tools)" >&2; exit 2; }
bin="${SHOEBOX:-$repo/.build/release/shoebox}"
if [ ! -x "$bin" ]; then (cd "$repo" && swift build -c release >&2); fi
cores=$(getconf _NPROCESSORS_ONLN)
IFS=, read -r -a size_list <<<"$sizes"

work="$(mktemp -d "${TMPDIR:-/tmp}/shoebox-thumbs-bench.XXXXXX")"
[ "$keep" = 1 ] || trap 'rm -rf "$work"' EXIT
"$bin" ingest "$corpus" --catalog "$work/c.sqlite" --progress none >/dev/null 2>&1 || true

# The image assets' photo resources (root + primary path), those vipsthumbnail can render.
"$bin" query 'mediaType == image AND NOT (traits CONTAINS raw)' --catalog "$work/c.sqlite" --format csv --fields cloudIdentifier,root,path |
    tail -n +2 | while IFS=, read -r id root path; do
        root="${root%\"}"; root="${root#\"}"; path="${path%\"}"; path="${path#\"}"
        printf '%s\t%s/%s\n' "$id" "$root" "$path"
    done >"$work/all.tsv"
: >"$work/ok.tsv"
while IFS=$'\t' read -r id f; do
    vipsthumbnail "$f" -s "${size_list[0]}" -o "$work/probe.jpg" >/dev/null 2>&1 && printf '%s\t%s\n' "$id" "$f" >>"$work/ok.tsv"
done <"$work/all.tsv"
n=$(wc -l <"$work/ok.tsv")
[ "$n" -gt 0 ] || { echo "no renderable images under $corpus" >&2; exit 1; }
cut -f2 "$work/ok.tsv" >"$work/files.txt"
tr '\n' '\0' <"$work/files.txt" | xargs -0 cat >/dev/null  # warm the page cache

# shoebox renders the same assets, chosen by cloud identifier, original version (the photo resource).
pred="cloudIdentifier IN {$(cut -f1 "$work/ok.tsv" | awk '{ printf "%s\"%s\"", (NR>1?", ":""), $0 }')}"

now() { date +%s.%N; }
# One vipsthumbnail process for a file and a size (the output name keeps files of equal names apart).
export VIPS_OUT="$work/vips"
vips_one() {
    local f="$1" s="$2"
    vipsthumbnail "$f" -s "$s" --export-profile srgb -o "$VIPS_OUT/$(printf '%s' "$f" | md5sum | cut -c1-12)_%s_${s}.jpg[Q=85,strip]" 2>/dev/null || true
}
export -f vips_one

# Each contender starts from an empty output directory.
run_ours() {
    rm -rf "$work/ours"
    "$bin" thumbnails "$pred" --catalog "$work/c.sqlite" --sizes "$sizes" --mode fit --version original --jobs "$1" \
        --progress none --out "$work/ours" >"$work/ours-$1.txt" 2>&1 || true
}
run_vips_seq() {
    rm -rf "$VIPS_OUT"; mkdir -p "$VIPS_OUT"
    while IFS= read -r f; do
        for s in "${size_list[@]}"; do vips_one "$f" "$s"; done
    done <"$work/files.txt"
}
run_vips_xargs() {
    rm -rf "$VIPS_OUT"; mkdir -p "$VIPS_OUT"
    while IFS= read -r f; do for s in "${size_list[@]}"; do printf '%s\0%s\0' "$f" "$s"; done; done <"$work/files.txt" |
        xargs -0 -n 2 -P "$cores" bash -c 'vips_one "$1" "$2"' _
}
best() { # the shortest wall time, in seconds, of $repeats runs of "$@"
    local b="" a z t
    for _ in $(seq "$repeats"); do
        a=$(now); "$@" >/dev/null; z=$(now)
        t=$(awk -v a="$a" -v z="$z" 'BEGIN { printf "%.3f", z - a }')
        b=$(awk -v b="$b" -v t="$t" 'BEGIN { print (b == "" || t < b) ? t : b }')
    done
    echo "$b"
}

t_ours_n=$(best run_ours "$cores")
made=$(find "$work/ours" -type f -name '*.jpg' | wc -l)
t_ours_1=$(best run_ours 1)
t_seq=$(best run_vips_seq)
t_xargs=$(best run_vips_xargs)
vmade=$(find "$VIPS_OUT" -type f -name '*.jpg' | wc -l)

awk -v n="$n" -v sizes="$sizes" -v made="$made" -v vmade="$vmade" -v cores="$cores" -v r="$repeats" \
    -v on="$t_ours_n" -v o1="$t_ours_1" -v vs="$t_seq" -v vx="$t_xargs" 'BEGIN {
    printf "%d images, sizes %s (fit); thumbnails written: shoebox %d, vipsthumbnail %d; %d cores; best of %d runs\n", n, sizes, made, vmade, cores, r
    printf "  %-26s %8.2f s  %7.1f ms/image\n", "shoebox -j " cores, on, on * 1000 / n
    printf "  %-26s %8.2f s  %7.1f ms/image\n", "shoebox -j 1", o1, o1 * 1000 / n
    printf "  %-26s %8.2f s  %7.1f ms/image\n", "vipsthumbnail per file", vs, vs * 1000 / n
    printf "  %-26s %8.2f s  %7.1f ms/image\n", "xargs -P " cores " vipsthumbnail", vx, vx * 1000 / n
    printf "speed-up of shoebox -j %d over vipsthumbnail per file: %.2fx; over xargs -P %d: %.2fx\n", cores, vs / on, cores, vx / on
    printf "speed-up of shoebox -j 1 over vipsthumbnail per file: %.2fx; shoebox -j %d over -j 1: %.2fx\n", vs / o1, cores, o1 / on
}'
tail -1 "$work/ours-$cores.txt"
