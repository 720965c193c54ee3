#!/usr/bin/env bash
# Per-file cost of `shoebox thumbnails` vs `vipsthumbnail` on the same images, one process each.
#
#   Benchmarks/thumbs-bench.sh [-c CORPUS] [-s SIZE] [-j JOBS] [--keep]
#
#   -c CORPUS  a tree of photos (default: $SHOEBOX_CORPUS, else <repo>/../shared/corpus)
#   -s SIZE    thumbnail size (default 256, fit)
#   -j JOBS    shoebox --jobs (default 1, to compare with vipsthumbnail's single process file by file;
#              vipsthumbnail still uses libvips' own worker threads)
#   --keep     keep the work directory
#
# The tree is ingested first (not timed). Both tools then render the image assets' photo resources
# that vipsthumbnail can read (so failures cost neither side), from a warm page cache, to JPEG. The
# shoebox time includes opening the catalog and fetching; vipsthumbnail's includes its startup once.
# Binary: $SHOEBOX, else <repo>/.build/release/shoebox (built with `swift build -c release` if missing).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
corpus="${SHOEBOX_CORPUS:-$repo/../shared/corpus}"
size=256
jobs=1
keep=0
while [ $# -gt 0 ]; do
    case "$1" in
        -c) corpus="$2"; shift 2 ;;
        -s) size="$2"; shift 2 ;;
        -j) jobs="$2"; shift 2 ;;
        --keep) keep=1; shift ;;
        *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done
command -v vipsthumbnail >/dev/null || { echo "vipsthumbnail not found (Debian: libvips-tools)" >&2; exit 2; }
bin="${SHOEBOX:-$repo/.build/release/shoebox}"
if [ ! -x "$bin" ]; then (cd "$repo" && swift build -c release >&2); fi

work="$(mktemp -d "${TMPDIR:-/tmp}/shoebox-thumbs-bench.XXXXXX")"
[ "$keep" = 1 ] || trap 'rm -rf "$work"' EXIT
"$bin" ingest "$corpus" --catalog "$work/c.sqlite" --progress none >/dev/null 2>&1 || true

# The image assets' photo resources (root + primary path), those vipsthumbnail can render.
"$bin" query 'mediaType == image' --catalog "$work/c.sqlite" --format csv --fields cloudIdentifier,root,path |
    tail -n +2 | while IFS=, read -r id root path; do
        root="${root%\"}"; root="${root#\"}"; path="${path%\"}"; path="${path#\"}"
        printf '%s\t%s/%s\n' "$id" "$root" "$path"
    done >"$work/all.tsv"
: >"$work/ok.tsv"
while IFS=$'\t' read -r id f; do
    vipsthumbnail "$f" -s "$size" -o "$work/probe.jpg" >/dev/null 2>&1 && printf '%s\t%s\n' "$id" "$f" >>"$work/ok.tsv"
done <"$work/all.tsv"
n=$(wc -l <"$work/ok.tsv")
[ "$n" -gt 0 ] || { echo "no renderable images under $corpus" >&2; exit 1; }
cut -f2 "$work/ok.tsv" | tr '\n' '\0' | xargs -0 cat >/dev/null  # warm the page cache

# shoebox renders the same assets, chosen by cloud identifier, original version (the photo resource).
pred="cloudIdentifier IN {$(cut -f1 "$work/ok.tsv" | awk '{ printf "%s\"%s\"", (NR>1?", ":""), $0 }')}"
mkdir -p "$work/vips" "$work/ours"
t0=$(date +%s.%N)
cut -f2 "$work/ok.tsv" | tr '\n' '\0' | xargs -0 vipsthumbnail -s "$size" --export-profile srgb -o "$work/vips/%s_${size}.jpg[Q=85,strip]" 2>/dev/null || true
t1=$(date +%s.%N)
"$bin" thumbnails "$pred" --catalog "$work/c.sqlite" --sizes "$size" --mode fit --version original --jobs "$jobs" --out "$work/ours" >"$work/ours.txt" 2>&1 || true
t2=$(date +%s.%N)
made=$(find "$work/ours" -type f -name '*.jpg' | wc -l)
awk -v n="$n" -v made="$made" -v a="$t0" -v b="$t1" -v c="$t2" -v jobs="$jobs" 'BEGIN {
    v = (b - a) * 1000 / n; o = (c - b) * 1000 / n
    printf "%d images, %d thumbnails written by shoebox (--jobs %d)\n", n, made, jobs
    printf "vipsthumbnail   %8.1f ms/file\n", v
    printf "shoebox         %8.1f ms/file\n", o
    printf "ratio shoebox/vipsthumbnail %.2f\n", o / v
}'
tail -1 "$work/ours.txt"
