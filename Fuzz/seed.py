#!/usr/bin/env python3
"""Seeds a libFuzzer corpus dir for one target: seed.py TARGET OUTDIR CORPUS_DIR... (see run.sh).

Whole files for the container targets (by extension); for the metadata targets, blocks carved out of the
images (Apple maker notes, XMP packets, Exif TIFF); zlib/raw streams for Inflate; Fuzz/seeds/<target>."""
import hashlib, os, sys, zlib

target, out, roots = sys.argv[1], sys.argv[2], sys.argv[3:]
here = os.path.dirname(os.path.abspath(__file__))
CAP = 1 << 20  # never copy more than this per seed

EXT = {
    "FuzzBMFF": {"heic", "heif", "avif", "mov", "mp4", "m4v", "3gp", "cr3", "qt"},
    "FuzzJPEG": {"jpg", "jpeg"},
    "FuzzPNG": {"png"},
    "FuzzGIF": {"gif"},
    "FuzzWebP": {"webp"},
    "FuzzAAE": {"aae", "plist"},
    "FuzzTakeout": {"json"},
    "FuzzTIFF": {"dng", "nef", "cr2", "rw2", "arw", "orf", "tif", "tiff"},
    "FuzzTIFFDirectories": {"dng", "nef", "cr2", "rw2", "arw", "orf", "tif", "tiff", "btf"},
    "FuzzXMP": {"xmp"},
    "FuzzMPEGTS": {"mts", "m2ts", "ts"},
    "FuzzRawPreview": {"dng", "nef", "cr2", "cr3", "rw2", "raf", "arw", "orf"},
    "FuzzProbe": {"heic", "heif", "avif", "mov", "mp4", "m4v", "3gp", "jpg", "jpeg", "png", "gif", "webp",
                  "dng", "nef", "cr2", "cr3", "rw2", "raf", "arw", "aae", "xmp", "json", "mts", "avi",
                  "tif", "bmp", "psd", "jp2", "j2k", "jxl", "ico", "tga", "ppm", "pgm", "pam", "mpo", "m4a", "mp3", "wav", "aiff"},
}

count = 0
def put(data):
    global count
    if not data: return
    data = data[:CAP]
    with open(os.path.join(out, hashlib.sha1(data).hexdigest()), "wb") as f: f.write(data)
    count += 1

def files():
    for root in roots:
        if not os.path.isdir(root): continue
        for dp, _, fns in os.walk(root):
            for fn in sorted(fns):
                yield os.path.join(dp, fn), fn.rsplit(".", 1)[-1].lower() if "." in fn else ""

def read(p):
    with open(p, "rb") as f: return f.read(8 << 20)

def carve(data, start, end=None, limit=1 << 16):
    """Every block from `start` (to `end` inclusive, or `limit` bytes)."""
    i = data.find(start)
    while i >= 0:
        j = data.find(end, i) if end else -1
        yield data[i: j + len(end)] if end and j >= 0 else data[i: i + limit]
        i = data.find(start, i + 1)

# FuzzStill: the first byte chooses the reader (see Sources/FuzzStill/main.swift).
STILL = {"bmp": 0, "psd": 1, "jp2": 2, "j2k": 3, "jxl": 4, "ico": 5, "tga": 6, "ppm": 7, "pgm": 7, "pam": 7}

os.makedirs(out, exist_ok=True)
images = {"jpg", "jpeg", "heic", "heif", "png", "dng", "nef", "cr2", "cr3", "rw2", "mov", "mp4", "webp"}
for path, ext in files():
    if ext in EXT.get(target, ()):
        put(read(path))
    if target == "FuzzStill" and ext in STILL:
        put(bytes([STILL[ext]]) + read(path)[:65535])
    if target == "FuzzStill" and ext in images:
        for b in carve(read(path), b"8BIM"): put(b"\x08" + b)
        for b in carve(read(path), b"CreateDate=\"", b"\""): put(b"\x09" + b[12:-1])
    if ext not in images: continue
    if target == "FuzzMakerNote":
        for b in carve(read(path), b"Apple iOS\0"): put(b)
    elif target == "FuzzXMP":
        for b in carve(read(path), b"<x:xmpmeta", b"</x:xmpmeta>"): put(b)
    elif target == "FuzzTIFF":
        for b in carve(read(path), b"Exif\0\0"): put(b[6:])
    elif target == "FuzzInflate":
        d = read(path)[:4096]
        put(b"\x01" + zlib.compress(d)); put(b"\x81" + zlib.compress(d, 1))
        c = zlib.compressobj(9, zlib.DEFLATED, -15); put(b"\x00" + c.compress(d) + c.flush())

if target == "FuzzInflate":
    for text in [b"", b"a", b"hello hello hello hello", bytes(range(256)) * 8]:
        put(b"\x01" + zlib.compress(text)); put(b"\x01" + zlib.compress(text, 0))
        c = zlib.compressobj(6, zlib.DEFLATED, -15); put(b"\x00" + c.compress(text) + c.flush())

seeds = os.path.join(here, "seeds", target.removeprefix("Fuzz").lower())
if os.path.isdir(seeds):
    for fn in sorted(os.listdir(seeds)): put(read(os.path.join(seeds, fn)))
print(count)
