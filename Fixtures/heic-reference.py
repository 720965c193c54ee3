#!/usr/bin/env python3
"""Decode a HEIC's primary image without libheif, as an independent reference for the thumbnail tests.

    heic-reference.py IN.heic OUT.png

Reads the `meta` box (pitm, iinf, iloc, iref, iprp), extracts the primary item's HEVC bitstream — one
item, or every tile of a `grid` — as Annex B (the hvcC parameter sets, then each tile's NAL units with
start codes), decodes the tiles with ffmpeg's HEVC decoder, lays them out with ffmpeg's `tile` filter,
crops to the grid's output size and applies the item's `irot`/`imir` in property order.

Used where libheif 1.15 refuses the file (iPhone 15 Pro gain-map references), so the reference does not
share code with what it checks. Exit status 2 with a message for anything it does not handle (`clap`,
other codecs, construction methods other than file and idat offsets).
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from generate import parse_boxes  # noqa: E402


def fail(msg):
    print(f"heic-reference: {msg}", file=sys.stderr)
    sys.exit(2)


def boxes(b, start, end):
    """(type, payload start, box end) of the boxes in b[start:end] (the fixture generator's box walker)."""
    for typ, payload, box_end, _ in parse_boxes(b, start, end):
        if box_end > end:
            fail(f"box {typ!r} at {payload} runs past its parent")
        yield typ.decode("latin-1"), payload, box_end


def uint(b, i, n):
    return int.from_bytes(b[i:i + n], "big") if n else 0


def parse_meta(d):
    meta = next(((s, e) for t, s, e in boxes(d, 0, len(d)) if t == "meta"), None)
    if meta is None:
        fail("no meta box")
    children = {t: (s, e) for t, s, e in boxes(d, meta[0] + 4, meta[1])}
    # pitm
    s, _ = children["pitm"]
    primary = uint(d, s + 4, 2 if d[s] == 0 else 4)
    # iinf: item types
    s, e = children["iinf"]
    version = d[s]
    p = s + 4 + (2 if version == 0 else 4)
    types = {}
    for t, cs, ce in boxes(d, p, e):
        v = d[cs]
        idw = 2 if v < 3 else 4
        item = uint(d, cs + 4, idw)
        types[item] = d[cs + 4 + idw + 2:cs + 4 + idw + 6].decode("latin-1")
    # iloc
    s, e = children["iloc"]
    version = d[s]
    p = s + 4
    off_size, len_size = d[p] >> 4, d[p] & 15
    base_size, index_size = d[p + 1] >> 4, (d[p + 1] & 15 if version in (1, 2) else 0)
    p += 2
    count = uint(d, p, 2 if version < 2 else 4)
    p += 2 if version < 2 else 4
    locations = {}
    for _ in range(count):
        item = uint(d, p, 2 if version < 2 else 4)
        p += 2 if version < 2 else 4
        method = 0
        if version in (1, 2):
            method = d[p + 1] & 15
            p += 2
        p += 2  # data_reference_index
        base = uint(d, p, base_size)
        p += base_size
        extents = uint(d, p, 2)
        p += 2
        parts = []
        for _ in range(extents):
            p += index_size
            off = uint(d, p, off_size)
            p += off_size
            length = uint(d, p, len_size)
            p += len_size
            parts.append((base + off, length))
        locations[item] = (method, parts)
    # iref: dimg
    dimg = {}
    if "iref" in children:
        s, e = children["iref"]
        idw = 2 if d[s] == 0 else 4
        for t, cs, ce in boxes(d, s + 4, e):
            frm = uint(d, cs, idw)
            n = uint(d, cs + idw, 2)
            to = [uint(d, cs + idw + 2 + k * idw, idw) for k in range(n)]
            if t == "dimg":
                dimg[frm] = to
    # iprp: ipco + ipma
    s, e = children["iprp"]
    iprp = {t: (cs, ce) for t, cs, ce in boxes(d, s, e)}
    props = [(t, cs, ce) for t, cs, ce in boxes(d, *iprp["ipco"])]
    s, e = iprp["ipma"]
    version, flags = d[s], uint(d, s + 1, 3)
    p = s + 4
    count = uint(d, p, 4)
    p += 4
    assoc = {}
    for _ in range(count):
        item = uint(d, p, 2 if version < 1 else 4)
        p += 2 if version < 1 else 4
        n = d[p]
        p += 1
        idx = []
        for _ in range(n):
            if flags & 1:
                v = uint(d, p, 2) & 0x7FFF
                p += 2
            else:
                v = d[p] & 0x7F
                p += 1
            if v:
                idx.append(props[v - 1])
        assoc[item] = idx
    idat = children.get("idat", (0, 0))[0]
    return primary, types, locations, dimg, assoc, idat


def item_data(d, locations, item, idat):
    """Method 0: offsets in the file; method 1: offsets in the meta box's idat."""
    method, parts = locations[item]
    if method not in (0, 1):
        fail(f"item {item}: construction method {method} not handled")
    base = idat if method == 1 else 0
    return b"".join(d[base + o:base + o + n] for o, n in parts)


def annexb(d, hvcc, data):
    s, e = hvcc
    length_size = (d[s + 21] & 3) + 1
    out = bytearray()
    p = s + 23
    for _ in range(d[s + 22]):
        p += 1
        n = uint(d, p, 2)
        p += 2
        for _ in range(n):
            ln = uint(d, p, 2)
            out += b"\0\0\0\1" + d[p + 2:p + 2 + ln]
            p += 2 + ln
    i = 0
    while i + length_size <= len(data):
        ln = uint(data, i, length_size)
        out += b"\0\0\0\1" + data[i + length_size:i + length_size + ln]
        i += length_size + ln
    return bytes(out)


def main():
    if len(sys.argv) != 3:
        fail("usage: heic-reference.py IN.heic OUT.png")
    d = open(sys.argv[1], "rb").read()
    primary, types, locations, dimg, assoc, idat = parse_meta(d)
    kind = types.get(primary)
    if kind == "grid":
        g = item_data(d, locations, primary, idat)
        rows, cols = g[2] + 1, g[3] + 1
        w = uint(g, 4, 4 if g[1] & 1 else 2)
        h = uint(g, 4 + (4 if g[1] & 1 else 2), 4 if g[1] & 1 else 2)
        tiles = dimg[primary]
        if len(tiles) != rows * cols:
            fail(f"grid {rows}x{cols} with {len(tiles)} tiles")
    elif kind == "hvc1":
        rows = cols = 1
        tiles = [primary]
        ispe = next(p for p in assoc[primary] if p[0] == "ispe")
        w, h = uint(d, ispe[1] + 4, 4), uint(d, ispe[1] + 8, 4)
    else:
        fail(f"primary item {primary} is {kind!r}, not hvc1 or grid")
    stream = bytearray()
    for t in tiles:
        if types.get(t) != "hvc1":
            fail(f"tile {t} is {types.get(t)!r}")
        hvcc = next(((cs, ce) for n, cs, ce in assoc[t] if n == "hvcC"), None)
        if hvcc is None:
            fail(f"tile {t} has no hvcC")
        stream += annexb(d, hvcc, item_data(d, locations, t, idat))
    filters = [f"tile={cols}x{rows}", f"crop={w}:{h}:0:0"]
    for name, cs, ce in assoc[primary]:
        if name == "clap":
            fail("clap not handled")
        if name == "irot":
            turns = d[cs] & 3  # anticlockwise quarter turns
            filters += {1: ["transpose=2"], 2: ["hflip", "vflip"], 3: ["transpose=1"]}.get(turns, [])
        if name == "imir":
            filters.append("vflip" if d[cs] & 1 else "hflip")
    with tempfile.NamedTemporaryFile(suffix=".hevc") as f:
        f.write(stream)
        f.flush()
        r = subprocess.run(
            ["ffmpeg", "-v", "error", "-y", "-f", "hevc", "-i", f.name, "-vf", ",".join(filters), "-frames:v", "1",
             sys.argv[2]], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"ffmpeg: {r.stderr.strip()}")


if __name__ == "__main__":
    main()
