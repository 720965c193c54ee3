#!/usr/bin/env bash
# `shoebox report` timing: the thumbnails stage and page generation on ~3,000 files, and page generation
# alone on a large synthetic catalog (pagination at scale).
#
#   Benchmarks/report-bench.sh [-n FILES] [-N BIG] [-c CORPUS] [--no-big] [--same] [--keep]
#
#   -n FILES  files in the tree (default 3000): whole replicas of the corpus (facts/, *.md, assets.json left
#             out; see "The tree" below), so Live Photo halves and sidecars stay together.
#             It is ingested (timed, for context), then reported three times: a cold run (every thumbnail
#             rendered), a warm re-run (every thumbnail in the cache), and --no-render.
#   -N BIG    assets in the synthetic catalog (default 100000; Benchmarks/make-synthetic-catalog.py). Its files
#             do not exist: the report runs with --no-render, so only page generation is timed.
#   --no-big  skip the synthetic catalog.
#   --same    replicas are plain hard links (same content: their thumbnails are shared, most renders skipped).
#   --keep    keep the work directory.
# Binary: $SHOEBOX, else <repo>/.build/release/shoebox (built with `swift build -c release` if missing).
# Peak memory comes from /usr/bin/time -v when it is installed (Debian package `time`).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
corpus="${SHOEBOX_CORPUS:-$repo/../shared/corpus}"
files=3000
big=100000
do_big=1
distinct=1
keep=0
while [ $# -gt 0 ]; do
    case "$1" in
        -n) files="$2"; shift 2 ;;
        -N) big="$2"; shift 2 ;;
        -c) corpus="$2"; shift 2 ;;
        --no-big) do_big=0; shift ;;
        --same) distinct=0; shift ;;
        --keep) keep=1; shift ;;
        -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
        *) echo "report-bench.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done
[ -d "$corpus" ] || { echo "report-bench.sh: no corpus at '$corpus'" >&2; exit 1; }
corpus="$(cd "$corpus" && pwd)"
bin="${SHOEBOX:-$repo/.build/release/shoebox}"
if [ ! -x "$bin" ]; then (cd "$repo" && swift build -c release --product shoebox >&2); fi

work="$(mktemp -d "${TMPDIR:-/tmp}/shoebox-report-bench.XXXXXX")"
cleanup() { if [ "$keep" -eq 0 ]; then rm -rf "$work"; else echo "kept $work" >&2; fi; }
trap cleanup EXIT

# timed LABEL COMMAND...: wall seconds (and peak RSS with /usr/bin/time); stdout's last line is shown.
timed() {
    local label="$1" t0 t1 status=0 rss=""
    shift
    t0="$(date +%s.%N)"
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -v -o "$work/time.txt" "$@" >"$work/out.txt" 2>"$work/err.txt" || status=$?
        rss="$(awk -F': ' '/User time \(seconds\)|System time \(seconds\)/ { c += $2 } /Maximum resident set size/ { m = $2 }
            END { printf ", CPU %.1f s, peak RSS %d MiB", c, m / 1024 }' "$work/time.txt")"
    else
        "$@" >"$work/out.txt" 2>"$work/err.txt" || status=$?
    fi
    t1="$(date +%s.%N)"
    printf '%-34s %7.1f s%s, exit %d\n    %s\n' "$label" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$rss" "$status" \
        "$(tail -n 1 "$work/out.txt")"
}

# The tree: whole replicas of the corpus until there are at least FILES files. Thumbnails are named by
# content (cloud identifier + content hash), so hard-linked replicas would share them: with --distinct
# (the default) every replica's media files are copies with 16 bytes appended (an ISO-BMFF `free` box
# holding the replica number: after a JPEG's EOI, a PNG's IEND or a movie's last box it changes the content
# hash, not the picture); sidecars (JSON, XMP, AAE) stay hard links.
media_ext='jpg|jpeg|heic|heif|hif|png|gif|webp|avif|jxl|bmp|tif|tiff|dng|cr2|cr3|nef|nrw|arw|raf|rw2|orf|pef|srw|mov|mp4|m4v|3gp|avi|mkv|mts'
n=0
rep=0
mapfile -t rels < <(cd "$corpus" && find . -path ./facts -prune -o -type f ! -name '*.md' ! -name 'assets.json' ! -name '.*' -print | sed 's|^\./||')
per="${#rels[@]}"
while [ "$n" -lt "$files" ]; do
    rep=$((rep + 1))
    dir="$work/tree/$(printf 'rep-%04d' "$rep")"
    for rel in "${rels[@]}"; do
        mkdir -p "$dir/$(dirname "$rel")"
        ext="${rel##*.}"
        if [ "$distinct" -eq 1 ] && [[ "${ext,,}" =~ ^($media_ext)$ ]]; then
            cp "$corpus/$rel" "$dir/$rel"
            printf '\0\0\0\020free%08d' "$rep" >>"$dir/$rel"
        else
            ln "$corpus/$rel" "$dir/$rel" 2>/dev/null || cp -p "$corpus/$rel" "$dir/$rel"
        fi
    done
    n=$((n + per))
done
echo "tree: $n files ($rep replicas of $per, $([ "$distinct" -eq 1 ] && echo "media made distinct" || echo "hard links")), $(nproc) cores"
timed "ingest" "$bin" ingest "$work/tree" --catalog "$work/c.sqlite" --progress none
timed "report, cold (renders thumbnails)" "$bin" report --catalog "$work/c.sqlite" --out "$work/site" --progress none
echo "    pages: $(find "$work/site" -name '*.html' | wc -l), thumbnails: $(find "$work/site/thumbs" -type f -name '*.jpg' | wc -l) files"
timed "report, warm (thumbnails cached)" "$bin" report --catalog "$work/c.sqlite" --out "$work/site" --progress none
timed "report --no-render" "$bin" report --catalog "$work/c.sqlite" --out "$work/site2" --thumbs "$work/site/thumbs" --no-render --progress none

if [ "$do_big" -eq 1 ]; then
    mkdir -p "$work/empty"
    "$bin" ingest --catalog "$work/big.sqlite" --progress none "$work/empty" >/dev/null
    python3 "$here/make-synthetic-catalog.py" "$work/big.sqlite" "$big"
    timed "report --no-render, $big assets" "$bin" report --catalog "$work/big.sqlite" --out "$work/bigsite" --no-render --progress none
    echo "    pages: $(find "$work/bigsite" -name '*.html' | wc -l), site size: $(du -sh "$work/bigsite" | cut -f1)," \
        "largest page: $(find "$work/bigsite" -name '*.html' -printf '%s\n' | sort -n | tail -1) bytes"
fi
