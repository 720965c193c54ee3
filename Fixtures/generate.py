#!/usr/bin/env python3
"""Deterministic generator for Shoebox's synthetic test fixtures.

Usage:  python3 Fixtures/generate.py [--out DIR]     (default: Fixtures/generated next to this file)

Needs: python3 (stdlib only), ffmpeg/ffprobe 5.1 (libx264, mjpeg), exiftool.
Writes tiny media files plus expected.json (the facts a correct reader must find, and what
exiftool / ffprobe actually report). Every run produces byte-identical output: fixed UUIDs and
dates, ffmpeg in bitexact mode with an explicit creation_time, no clock anywhere.
See Fixtures/README.md.
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "generated")

# ---------------------------------------------------------------------------------------------
# Fixed values
# ---------------------------------------------------------------------------------------------
CREATION_UTC = "2024-05-01T10:34:56Z"           # mvhd/tkhd/mdhd creation + modification time
CREATIONDATE = "2024-05-01T12:34:56+0200"       # com.apple.quicktime.creationdate
ISO6709 = "+48.8583+002.2945+035.000/"
MAKE, MODEL, SOFTWARE = "Apple", "iPhone 15 Pro", "17.4.1"
LENS = "iPhone 15 Pro back camera 6.765mm f/1.78"
UUID_KEYS = "0F1E2D3C-4B5A-4968-8776-A5B4C3D2E1F0"      # track-keys-first / meta-first
UUID_LIVE = "5A1B2C3D-4E5F-4061-8273-94A5B6C7D8E9"      # livephoto.mov <-> livephoto.jpg / makernote-le.jpg
UUID_BURST = "B0B1B2B3-C4C5-4D6E-8F70-8192A3B4C5D6"
DTO, SUBSEC, OFFSET = "2024:05:01 12:34:56", "123", "+02:00"

QT = "com.apple.quicktime."
K_LENS = QT + "camera.lens_model"
K_CAPTURE = "com.apple.photos.captureMode"
K_CID = QT + "content.identifier"
K_CDATE = QT + "creationdate"
K_LOC = QT + "location.ISO6709"
K_MAKE, K_MODEL, K_SW = QT + "make", QT + "model", QT + "software"
K_INTENT = QT + "full-frame-rate-playback-intent"
K_VSV = QT + "live-photo.vitality-scoring-version"
K_VS = QT + "live-photo.vitality-score"
K_AUTO = QT + "live-photo.auto"
K_STILL = QT + "still-image-time"

BITEXACT = ["-fflags", "+bitexact", "-flags", "+bitexact", "-map_metadata", "-1"]


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw).stdout


# ---------------------------------------------------------------------------------------------
# ISO-BMFF helpers
# ---------------------------------------------------------------------------------------------
def box(typ, payload=b""):
    if isinstance(typ, str):
        typ = typ.encode("latin-1")
    return struct.pack(">I", 8 + len(payload)) + typ + payload


def fullbox(typ, payload=b"", version=0, flags=0):
    return box(typ, struct.pack(">I", (version << 24) | flags) + payload)


def parse_boxes(data, start=0, end=None):
    """[(type, payload_start, box_end, header_size)] of the boxes in data[start:end]."""
    end = len(data) if end is None else end
    out, off = [], start
    while off + 8 <= end:
        size, typ = struct.unpack(">I4s", data[off:off + 8])
        hdr = 8
        if size == 1:
            size = struct.unpack(">Q", data[off + 8:off + 16])[0]
            hdr = 16
        elif size == 0:
            size = end - off
        out.append((typ, off + hdr, off + size, hdr))
        off += size
    return out


def children(data):
    """list of (type, full box bytes) of the boxes in data."""
    return [(t, data[s - h:e]) for (t, s, e, h) in parse_boxes(data)]


def payload_of(boxbytes):
    return boxbytes[8:]


def qt_value(kind, value):
    """(type indicator, payload) for a QuickTime 'data' atom."""
    if kind == "utf8":
        return 1, value.encode("utf-8")
    if kind.startswith("int"):            # signed BE, width in bits: int8/int16/int32/int64
        n = int(kind[3:]) // 8
        return 21, value.to_bytes(n, "big", signed=True)
    if kind.startswith("uint"):
        n = int(kind[4:]) // 8
        return 22, value.to_bytes(n, "big", signed=False)
    if kind == "float32":
        return 23, struct.pack(">f", value)
    raise ValueError(kind)


def mdta_meta(items, locale=0):
    """QuickTime metadata box: meta (plain box) { hdlr mdta, keys, ilst }.
    items: [(key, kind, value)]; keys are listed in this order, item n refers to key n (1-based)."""
    # hdlr as Apple writes it (34 bytes): pre_defined 0, 'mdta', 12 reserved bytes, 2-byte empty name
    hdlr = fullbox("hdlr", b"\0\0\0\0" + b"mdta" + b"\0" * 12 + b"\0\0")
    keys = fullbox("keys", struct.pack(">I", len(items)) +
                   b"".join(struct.pack(">I", 8 + len(k)) + b"mdta" + k.encode() for k, _, _ in items))
    ilst_items = []
    for i, (_, kind, value) in enumerate(items, 1):
        ind, pl = qt_value(kind, value)
        ilst_items.append(box(struct.pack(">I", i), box("data", struct.pack(">II", ind, locale) + pl)))
    return box("meta", hdlr + keys + box("ilst", b"".join(ilst_items)))


def rebuild(boxbytes, new_children):
    typ = boxbytes[4:8]
    return box(typ, b"".join(new_children))


def patch_trak(trak, extra_children=(), stts=None):
    """Return trak with extra children appended, optionally the video stts replaced."""
    kids = []
    for t, b in children(payload_of(trak)):
        if stts is not None and t == b"mdia":
            b = replace_stts(b, stts)
        kids.append(b)
    kids.extend(extra_children)
    return rebuild(trak, kids)


def replace_stts(mdia, entries):
    def walk(b):
        t = b[4:8]
        if t == b"stts":
            return fullbox("stts", struct.pack(">I", len(entries)) +
                           b"".join(struct.pack(">II", c, d) for c, d in entries))
        if t in (b"mdia", b"minf", b"stbl"):
            return rebuild(b, [walk(c) for _, c in children(payload_of(b))])
        return b
    return walk(mdia)


def handler_type(trak):
    for t, b in children(payload_of(trak)):
        if t == b"mdia":
            for t2, b2 in children(payload_of(b)):
                if t2 == b"hdlr":
                    return b2[16:20]
    return None


def ffmpeg_movie(path, fps, frames, timescale, size="64x48", fmt="mov", creation=CREATION_UTC):
    dur = frames / fps
    run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi",
         "-i", f"testsrc2=size={size}:rate={fps}:duration={dur}",
         "-frames:v", str(frames),
         "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency",
         "-x264-params", "threads=1:keyint=60", "-pix_fmt", "yuv420p",
         "-video_track_timescale", str(timescale),
         *BITEXACT, "-metadata", f"creation_time={creation}",
         "-f", fmt, path])
    return open(path, "rb").read()


def assemble_mov(src, *, track_meta=None, movie_meta=None, movie_meta_first=False,
                 stts=None, extra_traks=(), extra_mdat=b"", next_track_id=None):
    """Take an ffmpeg movie (moov after mdat) and add QuickTime metadata.
    Boxes are only added inside moov, or as a new mdat right before moov, so no chunk offset of
    the ffmpeg mdat moves. Returns (bytes, offset of extra_mdat's payload or None)."""
    top = parse_boxes(src)
    assert [t for t, *_ in top][-1] == b"moov", "moov must be last (no faststart)"
    t, s, e, h = top[-1]
    head = src[:s - h]
    extra_off = None
    if extra_mdat:
        extra_off = len(head) + 8
        head += box("mdat", extra_mdat)
    kids = []
    for ct, cb in children(src[s:e]):
        if ct == b"trak" and handler_type(cb) == b"vide":
            cb = patch_trak(cb, [track_meta] if track_meta else [], stts=stts)
        if ct == b"mvhd" and next_track_id is not None:
            cb = cb[:-4] + struct.pack(">I", next_track_id)
        kids.append(cb)
        if ct == b"mvhd" and movie_meta and movie_meta_first:
            kids.append(movie_meta)
    kids.extend(extra_traks)
    if movie_meta and not movie_meta_first:
        kids.append(movie_meta)          # Apple's order: traks (with their meta) first, moov/meta last
    return head + box("moov", b"".join(kids)), extra_off


def mvhd_info(src):
    for t, s, e, h in parse_boxes(src):
        if t == b"moov":
            for t2, s2, e2, h2 in parse_boxes(src, s, e):
                if t2 == b"mvhd":
                    v = src[s2]
                    if v == 0:
                        ctime, mtime, ts, dur = struct.unpack(">IIII", src[s2 + 4:s2 + 20])
                        nxt = struct.unpack(">I", src[e2 - 4:e2])[0]
                        return dict(ctime=ctime, mtime=mtime, timescale=ts, duration=dur, next_track_id=nxt)
    raise ValueError("no mvhd")


def mebx_still_image_time_trak(track_id, ref_track, ctime, movie_ts, empty_edit, sample_offset):
    """Timed-metadata track (Apple 'Core Media Metadata', sample entry mebx) with one key,
    com.apple.quicktime.still-image-time (int8, well-known type 65), one sample (value -1),
    media timescale 600, sample duration 1, moved to time `empty_edit` (movie timescale)
    by an empty edit -- the layout of a real iPhone Live Photo movie (IMG_4394.mov track 5)."""
    matrix = struct.pack(">9I", 0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000)
    tkhd = fullbox("tkhd", struct.pack(">IIIII", ctime, ctime, track_id, 0, empty_edit + 1) +
                   b"\0" * 8 + struct.pack(">hhhH", 0, 0, 0, 0) + matrix + struct.pack(">II", 0, 0),
                   flags=0xF)
    elst = fullbox("elst", struct.pack(">I", 2) +
                   struct.pack(">IiI", empty_edit, -1, 0x10000) +
                   struct.pack(">IiI", 1, 0, 0x10000))
    tref = box("tref", box("cdsc", struct.pack(">I", ref_track)))
    mdhd = fullbox("mdhd", struct.pack(">IIIIHH", ctime, ctime, 600, 1, 0x55C4, 0))
    hdlr = fullbox("hdlr", b"mhlr" + b"meta" + b"appl" + struct.pack(">II", 1, 0) +
                   bytes([19]) + b"Core Media Metadata")
    gmhd = box("gmhd", fullbox("gmin", struct.pack(">HHHHhH", 0x40, 0x8000, 0x8000, 0x8000, 0, 0)))
    dhdlr = fullbox("hdlr", b"dhlr" + b"alis" + b"appl" + struct.pack(">II", 0, 0) +
                    bytes([23]) + b"Core Media Data Handler")
    dinf = box("dinf", fullbox("dref", struct.pack(">I", 1) + fullbox("alis", flags=1)))
    keyd = box("keyd", b"mdta" + K_STILL.encode())
    dtyp = box("dtyp", struct.pack(">II", 0, 65))          # namespace 0 (well-known), 65 = int8
    keys = box("keys", box(struct.pack(">I", 1), keyd + dtyp))
    mebx = box("mebx", b"\0" * 6 + struct.pack(">H", 1) + keys)
    stsd = fullbox("stsd", struct.pack(">I", 1) + mebx)
    stts = fullbox("stts", struct.pack(">III", 1, 1, 1))
    stsc = fullbox("stsc", struct.pack(">IIII", 1, 1, 1, 1))
    stsz = fullbox("stsz", struct.pack(">II", 9, 1))
    stco = fullbox("stco", struct.pack(">II", 1, sample_offset))
    stbl = box("stbl", stsd + stts + stsc + stsz + stco)
    minf = box("minf", gmhd + dhdlr + dinf + stbl)
    mdia = box("mdia", mdhd + hdlr + minf)
    return box("trak", tkhd + box("edts", elst) + tref + mdia)


STILL_SAMPLE = struct.pack(">I", 9) + struct.pack(">I", 1) + b"\xff"   # item: size, local key id 1, int8 -1


# ---------------------------------------------------------------------------------------------
# TIFF / EXIF helpers
# ---------------------------------------------------------------------------------------------
BYTE, ASCII, SHORT, LONG, RATIONAL, UNDEF, SLONG, SRATIONAL = 1, 2, 3, 4, 5, 7, 9, 10
TSIZE = {BYTE: 1, ASCII: 1, SHORT: 2, LONG: 4, RATIONAL: 8, UNDEF: 1, SLONG: 4, SRATIONAL: 8}


def encode_value(bo, typ, value):
    if typ == ASCII:
        b = value.encode() + b"\0"
        return b, len(b)
    if typ == UNDEF:
        return value, len(value)
    fmt = {BYTE: "B", SHORT: "H", LONG: "I", SLONG: "i"}.get(typ)
    if fmt:
        vals = value if isinstance(value, (list, tuple)) else [value]
        return struct.pack(bo + fmt * len(vals), *vals), len(vals)
    if typ in (RATIONAL, SRATIONAL):
        f = "i" if typ == SRATIONAL else "I"
        return b"".join(struct.pack(bo + f + f, n, d) for n, d in value), len(value)
    raise ValueError(typ)


def ifd(bo, entries, base, next_ifd=0):
    """One IFD placed at `base` (offsets are computed relative to the origin used for `base`).
    entries: [(tag, type, value)]; values > 4 bytes follow the IFD. Returns bytes."""
    entries = sorted(entries)
    n = len(entries)
    data_off = base + 2 + 12 * n + 4
    table, data = [], b""
    for tag, typ, value in entries:
        raw, count = encode_value(bo, typ, value)
        if len(raw) <= 4:
            field = raw + b"\0" * (4 - len(raw))
        else:
            field = struct.pack(bo + "I", data_off + len(data))
            data += raw + (b"\0" if len(raw) % 2 else b"")
        table.append(struct.pack(bo + "HHI", tag, typ, count) + field)
    return struct.pack(bo + "H", n) + b"".join(table) + struct.pack(bo + "I", next_ifd) + data


def apple_makernote(bo_char, *, content_id, burst_uuid, hdr_type=3, processing_flags=0x100):
    """Apple iOS maker note: 'Apple iOS\\0', version 00 01, byte order, then an IFD (count at 14)
    whose out-of-line offsets are relative to the start of the maker note (the 'A').
    content_id / burst_uuid / hdr_type / processing_flags = None leave that tag out."""
    bo = ">" if bo_char == "MM" else "<"
    entries = [
        (0x0001, SLONG, 14),                                        # MakerNoteVersion
        (0x0008, SRATIONAL, [(-9854, 10000), (193, 10000), (376, 10000)]),  # AccelerationVector
        (0x000A, SLONG, hdr_type),                                  # HDRImageType
        (0x000B, ASCII, burst_uuid),                                # BurstUUID
        (0x0011, ASCII, content_id),                                # ContentIdentifier
        (0x0014, SLONG, 10),                                        # ImageCaptureType (10 = Photo)
        (0x0019, SLONG, processing_flags),                          # ImageProcessingFlags
    ]
    entries = [e for e in entries if e[2] is not None]
    head = b"Apple iOS\0" + b"\x00\x01" + bo_char.encode()
    return head + ifd(bo, entries, base=len(head))


MAKERNOTE_FACTS = {
    "byteOrder": None,
    "MakerNoteVersion": 14,
    "AccelerationVector": [-0.9854, 0.0193, 0.0376],
    "AccelerationVectorRaw": [[-9854, 10000], [193, 10000], [376, 10000]],
    "HDRImageType": 3,
    "BurstUUID": UUID_BURST,
    "ContentIdentifier": UUID_LIVE,
    "ImageCaptureType": 10,
    "ImageProcessingFlags": 256,
}


def exif_tiff(ifd0_entries, exif_entries, bo=">"):
    """TIFF block: header, IFD0 (with ExifIFD pointer), ExifIFD. Offsets from the TIFF header."""
    hdr = (b"MM" if bo == ">" else b"II") + struct.pack(bo + "HI", 42, 8)
    # ExifIFD pointer value depends on IFD0's size, which does not depend on the pointer value
    probe = ifd(bo, ifd0_entries + [(0x8769, LONG, 0)], base=8)
    exif_off = 8 + len(probe)
    exif_off += exif_off % 2
    ifd0b = ifd(bo, ifd0_entries + [(0x8769, LONG, exif_off)], base=8)
    body = hdr + ifd0b
    body += b"\0" * (exif_off - len(body))
    return body + ifd(bo, exif_entries, base=exif_off)


def ffmpeg_jpeg(path, size):
    run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=size={size}:rate=1",
         "-frames:v", "1", "-c:v", "mjpeg", "-pix_fmt", "yuvj420p", *BITEXACT,
         "-f", "image2", "-update", "1", path])
    return open(path, "rb").read()


def jpeg_with_segments(jpeg, segments):
    """Replace the APPn/COM segments of an ffmpeg JPEG by `segments` (list of (marker, payload))."""
    assert jpeg[:2] == b"\xff\xd8"
    off = 2
    while jpeg[off] == 0xFF and (0xE0 <= jpeg[off + 1] <= 0xEF or jpeg[off + 1] == 0xFE):
        off += 2 + struct.unpack(">H", jpeg[off + 2:off + 4])[0]
    out = b"\xff\xd8"
    for marker, pl in segments:
        assert len(pl) + 2 <= 0xFFFF
        out += bytes([0xFF, marker]) + struct.pack(">H", len(pl) + 2) + pl
    return out + jpeg[off:]


def apple_jpeg(base, *, makernote=None, custom_rendered=None, lens=True, make=MAKE, model=MODEL,
               software=SOFTWARE, orientation=1, dto=DTO, offset=OFFSET, subsec=SUBSEC, lens_model=LENS):
    """JPEG with an EXIF block (IFD0 + ExifIFD). Keyword values of None leave that tag out."""
    ifd0 = [(0x010F, ASCII, make), (0x0110, ASCII, model), (0x0112, SHORT, orientation),
            (0x0131, ASCII, software)]
    ex = [(0x9003, ASCII, dto), (0x9011, ASCII, offset), (0x9291, ASCII, subsec)]
    if makernote is not None:
        ex.append((0x927C, UNDEF, makernote))
    if custom_rendered is not None:
        ex.append((0xA401, SHORT, custom_rendered))
    if lens:
        ex += [(0xA433, ASCII, make), (0xA434, ASCII, lens_model)]
    ifd0 = [e for e in ifd0 if e[2] is not None]
    ex = [e for e in ex if e[2] is not None]
    tiff = exif_tiff(ifd0, ex)
    return jpeg_with_segments(base, [(0xE1, b"Exif\0\0" + tiff)]), tiff


# ---------------------------------------------------------------------------------------------
# PNG helpers
# ---------------------------------------------------------------------------------------------
def chunk(typ, data):
    typ = typ.encode()
    return struct.pack(">I", len(data)) + typ + data + struct.pack(">I", zlib.crc32(typ + data) & 0xFFFFFFFF)


def raw_rgb(w, h, color_fn):
    rows = []
    for y in range(h):
        row = bytearray([0])
        for x in range(w):
            row += bytes(color_fn(x, y))
        rows.append(bytes(row))
    return zlib.compress(b"".join(rows), 9)


def ihdr(w, h):
    return chunk("IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))


PNG_SIG = b"\x89PNG\r\n\x1a\n"


def xmp_packet(body_attrs, body_elems="", ns=""):
    return ('<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>\n'
            '<x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="Shoebox fixtures">\n'
            ' <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\n'
            f'  <rdf:Description rdf:about=""{ns}{body_attrs}>\n{body_elems}'
            '  </rdf:Description>\n </rdf:RDF>\n</x:xmpmeta>\n<?xpacket end="w"?>')


# ---------------------------------------------------------------------------------------------
# Oracles
# ---------------------------------------------------------------------------------------------
def exiftool(path, tags, extra=()):
    def keep_duplicates(pairs):       # -a can repeat a tag name: keep every value, in order
        d = {}
        for k, v in pairs:
            if k in d:
                d[k] = (d[k] if isinstance(d[k], list) and k in dup else [d[k]]) + [v]
                dup.add(k)
            else:
                d[k] = v
        return d
    dup = set()
    js = json.loads(run(["exiftool", "-j", "-G1", "-a", "-u", "-n", *extra, path]),
                    object_pairs_hook=keep_duplicates)[0]
    out = {}
    for k in tags:
        out[k] = js.get(k)
    return out


def ffprobe(path):
    js = json.loads(run(["ffprobe", "-v", "error", "-show_format", "-show_streams", "-of", "json", path]))
    fmt = js.get("format", {})
    return {
        "formatTags": {k: v for k, v in sorted(fmt.get("tags", {}).items())},
        "streams": [{
            "index": s["index"], "codec_type": s.get("codec_type"),
            "codec_tag_string": s.get("codec_tag_string"),
            "r_frame_rate": s.get("r_frame_rate"), "avg_frame_rate": s.get("avg_frame_rate"),
            "nb_frames": s.get("nb_frames"), "duration": s.get("duration"),
            "start_time": s.get("start_time"),
            "tags": {k: v for k, v in sorted(s.get("tags", {}).items())},
        } for s in js.get("streams", [])],
    }


def keys_dict(items):
    return {k: v for k, _, v in items}


def keys_types(items):
    return {k: kind for k, kind, _ in items}


# ---------------------------------------------------------------------------------------------
# Fixtures
# ---------------------------------------------------------------------------------------------
def main():
    out = OUT
    if "--out" in sys.argv:
        out = os.path.abspath(sys.argv[sys.argv.index("--out") + 1])
    for tool in ("ffmpeg", "ffprobe", "exiftool"):
        if shutil.which(tool) is None:
            sys.exit(f"generate.py: {tool} not found")
    os.makedirs(out, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="shoebox-fixtures-")
    expected = []

    def write(name, data):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
        return os.path.join(out, name)

    try:
        track_items = [(K_LENS, "utf8", LENS), (K_CAPTURE, "utf8", "Time-lapse")]
        movie_items = [(K_CID, "utf8", UUID_KEYS), (K_CDATE, "utf8", CREATIONDATE), (K_LOC, "utf8", ISO6709),
                       (K_MAKE, "utf8", MAKE), (K_MODEL, "utf8", MODEL)]
        # Apple writes track-level items with a locale (country 'US', language 0x15C7), movie-level with 0.
        tmeta = mdta_meta(track_items, locale=0x555315C7)

        base30 = ffmpeg_movie(os.path.join(tmp, "b30.mov"), 30, 15, 600)
        ET_MOV = ["Keys:ContentIdentifier", "Keys:CreationDate", "Keys:GPSCoordinates", "Keys:Make", "Keys:Model",
                  "Keys:CameraLensModel", "Keys:CaptureMode", "Keys:Full-frame-rate-playback-intent",
                  "Keys:LivePhotoVitalityScore",
                  "Keys:LivePhotoVitalityScoringVersion", "Keys:LivePhotoAuto", "Keys:Software",
                  "Track1:CameraLensModel-und-US", "Track1:CaptureMode-und-US", "Track1:VideoFrameRate",
                  "Track1:MediaTimeScale", "QuickTime:Duration", "Track2:StillImageTime",
                  "Track2:ContentDescribes"]

        def mov_entry(name, *, movie, track, samples, fps, dur, quirk, ts, still=None, note=None, stts=None):
            p = os.path.join(out, name)
            e = {"file": name, "kind": "mov",
                 "movieKeys": keys_dict(movie), "movieKeyTypes": keys_types(movie),
                 "trackKeys": ({"trackID": 1, "keys": keys_dict(track), "keyTypes": keys_types(track)}
                               if track else None),
                 "sampleCount": samples, "nominalFrameRate": fps, "durationSeconds": dur,
                 "mediaTimescale": ts, "stts": stts,
                 "stillImageTime": still, "makerNote": None, "embeddedVideo": None,
                 "exiftool": {k: v for k, v in exiftool(p, ET_MOV, ["-ee"]).items() if v is not None},
                 "ffprobe": ffprobe(p), "ffprobeQuirk": quirk}
            if note:
                e["note"] = note
            expected.append(e)

        # 1. track-keys-first.mov -----------------------------------------------------------
        data, _ = assemble_mov(base30, track_meta=tmeta, movie_meta=mdta_meta(movie_items))
        write("track-keys-first.mov", data)
        mov_entry("track-keys-first.mov", movie=movie_items, track=track_items, samples=15, fps=30.0, dur=0.5,
                  ts=600, stts=[[15, 20]],
                  note="Box order moov{mvhd, trak{..., meta}, meta}: the order real iPhone files use "
                       "(IMG_4394.mov, IMG_3539.MOV).",
                  quirk="ffmpeg 5.1 silently drops the video-track keys (camera.lens_model, "
                        "com.apple.photos.captureMode): they appear neither in format nor stream tags. "
                        "Movie-level keys are read correctly.")

        # 2. meta-first.mov ---------------------------------------------------------------------
        movie2 = movie_items + [(K_VSV, "int64", 4), (K_INTENT, "int8", 1), (K_VS, "float32", 0.93)]
        data, _ = assemble_mov(base30, track_meta=tmeta, movie_meta=mdta_meta(movie2), movie_meta_first=True)
        write("meta-first.mov", data)
        mov_entry("meta-first.mov", movie=movie2, track=track_items, samples=15, fps=30.0, dur=0.5, ts=600,
                  stts=[[15, 20]],
                  note="Box order moov{mvhd, meta, trak{..., meta}}. vitality-score is float32 0.93 "
                       "(exactly 0.9300000071525574 as a double).",
                  quirk=None)  # filled in below from the real ffprobe output

        # 3. slo-mo / high frame rate ----------------------------------------------------------------
        base240 = ffmpeg_movie(os.path.join(tmp, "b240.mov"), 240, 48, 2400)
        slomo_items = [(K_INTENT, "int8", 0), (K_CDATE, "utf8", CREATIONDATE), (K_MAKE, "utf8", MAKE),
                       (K_MODEL, "utf8", MODEL)]
        data, _ = assemble_mov(base240, movie_meta=mdta_meta(slomo_items))
        write("slomo-240.mov", data)
        mov_entry("slomo-240.mov", movie=slomo_items, track=None, samples=48, fps=240.0, dur=0.2, ts=2400,
                  stts=[[48, 10]],
                  quirk="none: 1-byte intent 0 and 240 fps are read correctly (control file).")

        hfr_items = [(K_INTENT, "int64", 1), (K_CDATE, "utf8", CREATIONDATE), (K_MAKE, "utf8", MAKE),
                     (K_MODEL, "utf8", MODEL)]
        data, _ = assemble_mov(base240, movie_meta=mdta_meta(hfr_items))
        write("hfr-240-intent1.mov", data)
        mov_entry("hfr-240-intent1.mov", movie=hfr_items, track=None, samples=48, fps=240.0, dur=0.2, ts=2400,
                  stts=[[48, 10]],
                  note="High frame rate but NOT slo-mo: intent = 1, written as an 8-byte type-21 int "
                       "exactly like iPhone 15 Pro files (IMG_4394.mov).",
                  quirk="ffmpeg 5.1 reports full-frame-rate-playback-intent=0 (it only decodes 1-4 byte "
                        "ints); a reader trusting it would call this clip slo-mo.")

        # claimed-240-real-30: 15 frames in 0.5 s, but stts = [(14, 10), (1, 1060)] at timescale 2400.
        # ffmpeg's mov demuxer sets r_frame_rate = timescale / first delta when stts has two entries
        # and the second has count 1.
        base_c = ffmpeg_movie(os.path.join(tmp, "bc.mov"), 30, 15, 2400)
        claimed_stts = [(14, 10), (1, 1200 - 140)]
        claim_items = [(K_CDATE, "utf8", CREATIONDATE), (K_MAKE, "utf8", MAKE), (K_MODEL, "utf8", MODEL)]
        data, _ = assemble_mov(base_c, movie_meta=mdta_meta(claim_items), stts=claimed_stts)
        write("claimed-240-real-30.mov", data)
        mov_entry("claimed-240-real-30.mov", movie=claim_items, track=None, samples=15, fps=30.0, dur=0.5,
                  ts=2400, stts=[list(x) for x in claimed_stts],
                  note="nominalFrameRate here = sampleCount / duration (30). The shortest sample "
                       "delta is 1/240 s; the last sample lasts 1060/2400 s.",
                  quirk=None)

        # 4. timelapse.mov + livephoto.mov ---------------------------------------------------------
        tl_items = [(K_MAKE, "utf8", MAKE), (K_MODEL, "utf8", MODEL), (K_SW, "utf8", SOFTWARE),
                    (K_CDATE, "utf8", CREATIONDATE)]
        data, _ = assemble_mov(base30, track_meta=tmeta, movie_meta=mdta_meta(tl_items))
        write("timelapse.mov", data)
        mov_entry("timelapse.mov", movie=tl_items, track=track_items, samples=15, fps=30.0, dur=0.5, ts=600,
                  stts=[[15, 20]],
                  note="Apple's real order (track meta first, moov/meta last), as in IMG_3539.MOV.",
                  quirk="ffmpeg 5.1 drops the track keys: com.apple.photos.captureMode (Time-lapse) "
                        "is invisible to it.")

        base_lp = ffmpeg_movie(os.path.join(tmp, "blp.mov"), 30, 30, 600)
        mv = mvhd_info(base_lp)
        empty = mv["timescale"] // 2          # 0.5 s in the movie timescale
        lp_items = [(K_AUTO, "uint8", 1), (K_INTENT, "int64", 1), (K_CID, "utf8", UUID_LIVE),
                    (K_VS, "float32", 0.93), (K_VSV, "int64", 4), (K_LOC, "utf8", ISO6709),
                    (K_MAKE, "utf8", MAKE), (K_MODEL, "utf8", MODEL), (K_SW, "utf8", SOFTWARE),
                    (K_CDATE, "utf8", CREATIONDATE)]
        lp_track = [(K_LENS, "utf8", LENS)]
        top = parse_boxes(base_lp)
        mdat_pos = top[-1][1] - top[-1][3]          # new mdat goes where moov starts now
        trak = mebx_still_image_time_trak(mv["next_track_id"], 1, mv["ctime"], mv["timescale"], empty,
                                          mdat_pos + 8)
        data, off = assemble_mov(base_lp, track_meta=mdta_meta(lp_track, locale=0x555315C7),
                                 movie_meta=mdta_meta(lp_items), extra_traks=[trak],
                                 extra_mdat=STILL_SAMPLE, next_track_id=mv["next_track_id"] + 1)
        assert off == mdat_pos + 8
        write("livephoto.mov", data)
        mov_entry("livephoto.mov", movie=lp_items, track=lp_track, samples=30, fps=30.0, dur=1.0, ts=600,
                  stts=[[30, 20]], still=0.5,
                  note=f"Track 2 is a mebx timed-metadata track (tref cdsc -> 1) whose keys list "
                       f"{K_STILL} (dtyp 65 = int8); one sample (value -1, 9 bytes at offset {off}), "
                       f"media timescale 600, edit list [empty {empty}/{mv['timescale']} s, then media 0 "
                       f"for 1] so the sample is presented at 0.5 s. Pairs with livephoto.jpg by "
                       f"ContentIdentifier.",
                  quirk=None)
        expected[-1]["timedMetadata"] = {"trackID": mv["next_track_id"], "keys": [K_STILL],
                                         "stillImageTimeValue": -1, "sampleOffset": off,
                                         "emptyEdit": [empty, mv["timescale"]]}

        # 5. JPEG with Apple maker note ---------------------------------------------------------
        base_j = ffmpeg_jpeg(os.path.join(tmp, "b.jpg"), "64x48")
        ET_JPG = ["IFD0:Make", "IFD0:Model", "ExifIFD:DateTimeOriginal", "ExifIFD:SubSecTimeOriginal",
                  "ExifIFD:OffsetTimeOriginal", "ExifIFD:CustomRendered", "ExifIFD:LensMake",
                  "ExifIFD:LensModel", "Apple:MakerNoteVersion", "Apple:AccelerationVector",
                  "Apple:HDRImageType", "Apple:BurstUUID", "Apple:MediaGroupUUID", "Apple:ContentIdentifier",
                  "Apple:ImageCaptureType", "Apple:ImageProcessingFlags", "Composite:SubSecDateTimeOriginal",
                  "File:ImageWidth", "File:ImageHeight", "ExifIFD:UserComment"]

        for name, bo in (("livephoto.jpg", "MM"), ("makernote-le.jpg", "II")):
            mn = apple_makernote(bo, content_id=UUID_LIVE, burst_uuid=UUID_BURST)
            jpg, tiff = apple_jpeg(base_j, makernote=mn)
            p = write(name, jpg)
            mnf = dict(MAKERNOTE_FACTS, byteOrder=bo)
            mn_off_tiff = tiff.find(b"Apple iOS\0")
            mnf["offsetInTIFF"] = mn_off_tiff
            mnf["offsetInFile"] = jpg.find(b"Apple iOS\0")
            mnf["length"] = len(mn)
            expected.append({
                "file": name, "kind": "jpeg", "width": 64, "height": 48,
                "exif": {"byteOrder": "MM", "Make": MAKE, "Model": MODEL, "Software": SOFTWARE, "Orientation": 1,
                         "DateTimeOriginal": DTO, "SubSecTimeOriginal": SUBSEC, "OffsetTimeOriginal": OFFSET,
                         "LensMake": MAKE, "LensModel": LENS, "CustomRendered": None},
                "makerNote": mnf, "embeddedVideo": None,
                "livePhotoPair": "livephoto.mov",
                "note": ("Maker note byte order differs from the EXIF byte order (EXIF MM, maker note II)."
                         if bo == "II" else "Maker note in Apple's byte order (MM), as on iPhones.")
                + " ImageProcessingFlags 0x100 is the panorama bit in Apple's PFMetadataImage rule "
                  "(reference §1.3), so a PF-faithful classifier also flags this still as a panorama.",
                "exiftool": {k: v for k, v in exiftool(p, ET_JPG).items() if v is not None},
            })

        # 6. panorama.jpg -----------------------------------------------------------------------
        base_p = ffmpeg_jpeg(os.path.join(tmp, "p.jpg"), "96x16")
        jpg, _ = apple_jpeg(base_p, custom_rendered=6)
        p = write("panorama.jpg", jpg)
        expected.append({
            "file": "panorama.jpg", "kind": "jpeg", "width": 96, "height": 16,
            "exif": {"byteOrder": "MM", "Make": MAKE, "Model": MODEL, "CustomRendered": 6,
                     "DateTimeOriginal": DTO, "SubSecTimeOriginal": SUBSEC, "OffsetTimeOriginal": OFFSET,
                     "LensMake": MAKE, "LensModel": LENS},
            "makerNote": None, "embeddedVideo": None,
            "exiftool": {k: v for k, v in exiftool(p, ET_JPG).items() if v is not None},
        })

        # 7. animated.png (APNG, 3 frames, loops forever) -----------------------------------------
        colors = [(255, 0, 0), (0, 255, 0), (0, 0, 255)]
        png = PNG_SIG + ihdr(16, 16) + chunk("acTL", struct.pack(">II", 3, 0))
        seq = 0
        for i, c in enumerate(colors):
            fctl = struct.pack(">IIIIIHHBB", seq, 16, 16, 0, 0, 1, 10, 0, 0)   # delay 1/10 s
            png += chunk("fcTL", fctl)
            seq += 1
            z = raw_rgb(16, 16, lambda x, y, c=c: c if (x // 4 + y // 4) % 2 else (255, 255, 255))
            if i == 0:
                png += chunk("IDAT", z)
            else:
                png += chunk("fdAT", struct.pack(">I", seq) + z)
                seq += 1
        png += chunk("IEND", b"")
        p = write("animated.png", png)
        ET_PNG = ["PNG:ImageWidth", "PNG:ImageHeight", "PNG:AnimationFrames", "PNG:AnimationPlays",
                  "ExifIFD:UserComment", "XMP-exif:UserComment", "IFD0:Make"]
        expected.append({
            "file": "animated.png", "kind": "png", "width": 16, "height": 16,
            "apng": {"numFrames": 3, "numPlays": 0, "frameDelaySeconds": 0.1},
            "makerNote": None, "embeddedVideo": None,
            "exiftool": {k: v for k, v in exiftool(p, ET_PNG).items() if v is not None},
        })

        # 8. screenshot.png -------------------------------------------------------------------------
        uc = b"ASCII\0\0\0" + b"Screenshot"
        tiff = exif_tiff([(0x0112, SHORT, 1)], [(0x9286, UNDEF, uc)])
        xmp = xmp_packet("", ns=' xmlns:exif="http://ns.adobe.com/exif/1.0/"',
                         body_elems='   <exif:UserComment>\n    <rdf:Alt>\n'
                                    '     <rdf:li xml:lang="x-default">Screenshot</rdf:li>\n'
                                    '    </rdf:Alt>\n   </exif:UserComment>\n')
        itxt = b"XML:com.adobe.xmp\0" + b"\0\0" + b"\0" + b"\0" + xmp.encode("utf-8")
        png = (PNG_SIG + ihdr(16, 16) + chunk("sRGB", b"\0") + chunk("iTXt", itxt) + chunk("eXIf", tiff) +
               chunk("IDAT", raw_rgb(16, 16, lambda x, y: (x * 16, y * 16, 128))) + chunk("IEND", b""))
        p = write("screenshot.png", png)
        expected.append({
            "file": "screenshot.png", "kind": "png", "width": 16, "height": 16,
            "exif": {"byteOrder": "MM", "UserComment": "Screenshot", "UserCommentEncoding": "ASCII"},
            "xmp": {"exif:UserComment": "Screenshot"},
            "makerNote": None, "embeddedVideo": None,
            "exiftool": {k: v for k, v in exiftool(p, ET_PNG).items() if v is not None},
        })

        # 9. motionphoto.jpg ------------------------------------------------------------------
        mp4 = ffmpeg_movie(os.path.join(tmp, "mp.mp4"), 30, 6, 90000, size="16x16", fmt="mp4")
        pts_us = 100000
        mp_xmp = xmp_packet(
            f'\n    GCamera:MotionPhoto="1"\n    GCamera:MotionPhotoVersion="1"\n'
            f'    GCamera:MotionPhotoPresentationTimestampUs="{pts_us}"',
            ns='\n    xmlns:GCamera="http://ns.google.com/photos/1.0/camera/"'
               '\n    xmlns:Container="http://ns.google.com/photos/1.0/container/"'
               '\n    xmlns:Item="http://ns.google.com/photos/1.0/container/item/"',
            body_elems='   <Container:Directory>\n    <rdf:Seq>\n'
                       '     <rdf:li rdf:parseType="Resource">\n'
                       '      <Container:Item Item:Mime="image/jpeg" Item:Semantic="Primary" '
                       'Item:Length="0" Item:Padding="0"/>\n     </rdf:li>\n'
                       '     <rdf:li rdf:parseType="Resource">\n'
                       f'      <Container:Item Item:Mime="video/mp4" Item:Semantic="MotionPhoto" '
                       f'Item:Length="{len(mp4)}" Item:Padding="0"/>\n     </rdf:li>\n'
                       '    </rdf:Seq>\n   </Container:Directory>\n')
        tiff = exif_tiff([(0x010F, ASCII, "Google"), (0x0110, ASCII, "Pixel 8"), (0x0112, SHORT, 1)],
                         [(0x9003, ASCII, DTO), (0x9011, ASCII, OFFSET)])
        still = jpeg_with_segments(base_j, [(0xE1, b"Exif\0\0" + tiff),
                                            (0xE1, b"http://ns.adobe.com/xap/1.0/\0" + mp_xmp.encode())])
        p = write("motionphoto.jpg", still + mp4)
        ET_MP = ["XMP-GCamera:MotionPhoto", "XMP-GCamera:MotionPhotoVersion",
                 "XMP-GCamera:MotionPhotoPresentationTimestampUs", "XMP-Container:Directory",
                 "IFD0:Make", "IFD0:Model", "File:ImageWidth", "File:ImageHeight", "File:EmbeddedVideo"]
        expected.append({
            "file": "motionphoto.jpg", "kind": "jpeg", "width": 64, "height": 48,
            "exif": {"byteOrder": "MM", "Make": "Google", "Model": "Pixel 8", "DateTimeOriginal": DTO,
                     "OffsetTimeOriginal": OFFSET},
            "xmp": {"GCamera:MotionPhoto": 1, "GCamera:MotionPhotoVersion": 1,
                    "GCamera:MotionPhotoPresentationTimestampUs": pts_us,
                    "Container:Directory": [
                        {"Mime": "image/jpeg", "Semantic": "Primary", "Length": 0, "Padding": 0},
                        {"Mime": "video/mp4", "Semantic": "MotionPhoto", "Length": len(mp4), "Padding": 0}]},
            "makerNote": None,
            "embeddedVideo": {"offset": len(still), "length": len(mp4), "format": "mp4",
                              "sampleCount": 6, "durationSeconds": 0.2, "width": 16, "height": 16},
            "exiftool": {k: v for k, v in exiftool(p, ET_MP, ["-ee", "-struct"]).items()
                         if v is not None and not (isinstance(v, str) and v.startswith("base64:"))},
        })

        # ffprobe quirks that depend on ffmpeg's actual behaviour: derive them from its output
        for e in expected:
            if e["kind"] != "mov" or e["ffprobeQuirk"] is not None:
                continue
            e["ffprobeQuirk"] = describe_quirk(e)

        library = build_library(out, tmp)
        raw = build_raw(out, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump({"generator": "Fixtures/generate.py",
                   "tools": {"ffmpeg": "5.1 (Debian bookworm)", "exiftool": "12.57"},
                   "files": expected}, f, indent=2, sort_keys=False, ensure_ascii=False)
        f.write("\n")
    lib, lib_files, lib_info = library
    with open(os.path.join(out, "library-expected.json"), "w") as f:
        json.dump(library_expected(lib_files, lib_info), f, indent=2, ensure_ascii=False)
        f.write("\n")
    with open(os.path.join(out, "raw-expected.json"), "w") as f:
        json.dump(raw, f, indent=2, ensure_ascii=False)
        f.write("\n")
    print(f"wrote {len(expected)} fixtures + expected.json to {out}")
    print(f"wrote {len(lib_files)} files to {lib} + library-expected.json")
    print(f"wrote {len(raw['files'])} files to {os.path.join(out, 'raw')} + raw-expected.json")
    import longtail  # the long-tail set (longtail/, longtail-expected.json); see Fixtures/longtail.py
    longtail.build(out)


# ---------------------------------------------------------------------------------------------
# library/: a small export tree for the assembler, and library-expected.json
# ---------------------------------------------------------------------------------------------
# Content identifiers (Apple MakerNote 0x0011 == com.apple.quicktime.content.identifier)
LIB_CID_A = "1A2B3C4D-0001-4A00-8A00-00000000000A"   # IMG_0001.JPG <-> IMG_0001.MOV (original Live Photo)
LIB_CID_B = "1A2B3C4D-0001-4B00-8B00-00000000000B"   # IMG_E0001.JPG <-> IMG_E0001.MOV (Photos' render)
LIB_CID_C = "1A2B3C4D-0002-4C00-8C00-00000000000C"   # IMG_0002.JPG <-> clip-from-phone.mov
LIB_CID_D = "1A2B3C4D-0004-4D00-8D00-00000000000D"   # IMG_0004.MOV, no still anywhere
LIB_CID_E = "1A2B3C4D-0200-4E00-8E00-00000000000E"   # bad/IMG_0200.JPG, bad/IMG_0201.JPG, bad/IMG_0200.MOV
LIB_CID_F = "1A2B3C4D-0210-4F00-8F00-00000000000F"   # bad/IMG_0210.JPG, bad/IMG_0211.JPG, bad/IMG_0211.MOV

TAKEOUT_JSON_NAME_MAX = 51    # Takeout cuts a sidecar name, ".json" included, to 51 characters


def takeout_json_name(media_name, supplemental=False, counter=""):
    """The sidecar name Google Takeout writes for `media_name`: `<name>[.supplemental-metadata]`
    cut to 51 - len(".json") = 46 characters, then the `(n)` counter of a duplicate name (which Takeout
    moves from the media stem to behind the extension: IMG_1(1).jpg -> IMG_1.jpg(1).json), then `.json`."""
    body = media_name + (".supplemental-metadata" if supplemental else "")
    return body[:TAKEOUT_JSON_NAME_MAX - len(".json")] + counter + ".json"


def utc_text(ts):
    import datetime
    return datetime.datetime.fromtimestamp(ts, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S+00:00")


def takeout_formatted(ts):
    import datetime
    d = datetime.datetime.fromtimestamp(ts, datetime.timezone.utc)
    months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    return f"{d.day} {months[d.month - 1]} {d.year}, {d.hour:02d}:{d.minute:02d}:{d.second:02d} UTC"


def takeout_json(title, taken, geo=None, upload=None, device="ANDROID_PHONE"):
    """A media sidecar as Google Takeout writes it (key order and string-typed timestamps included)."""
    upload = upload if upload is not None else taken + 86400
    g = {"latitude": geo[0], "longitude": geo[1], "altitude": geo[2], "latitudeSpan": 0.0,
         "longitudeSpan": 0.0} if geo else {"latitude": 0.0, "longitude": 0.0, "altitude": 0.0,
                                            "latitudeSpan": 0.0, "longitudeSpan": 0.0}
    d = {"title": title, "description": "", "imageViews": "2",
         "creationTime": {"timestamp": str(upload), "formatted": takeout_formatted(upload)},
         "photoTakenTime": {"timestamp": str(taken), "formatted": takeout_formatted(taken)},
         "geoData": g, "geoDataExif": g,
         "url": "https://photos.google.com/photo/AF1QipShoeboxFixture" + str(taken),
         "googlePhotosOrigin": {"mobileUpload": {"deviceType": device}}}
    return (json.dumps(d, indent=2, ensure_ascii=False) + "\n").encode()


def aae_plist(adjustments_json, *, editor="com.apple.mobileslideshow", version="1.5"):
    """IMG_nnnn.AAE: XML plist, adjustmentData = raw DEFLATE (wbits -15) of the JSON text."""
    import plistlib
    co = zlib.compressobj(9, zlib.DEFLATED, -15)
    blob = co.compress(adjustments_json.encode()) + co.flush()
    return plistlib.dumps({"adjustmentBaseVersion": 0, "adjustmentData": blob,
                           "adjustmentEditorBundleID": editor,
                           "adjustmentFormatIdentifier": "com.apple.photo",
                           "adjustmentFormatVersion": version, "adjustmentRenderTypes": 0},
                          fmt=plistlib.FMT_XML, sort_keys=True), blob


def nef_tiff(*, model, dto, full=(6000, 4000)):
    """Minimal little-endian NEF: IFD0 (a 2x2 RGB preview, NewSubfileType 1, Make/Model, SubIFDs,
    ExifIFD), ExifIFD (DateTimeOriginal/CreateDate), one SubIFD (NewSubfileType 0, the full-size
    CFA image, 14-bit, Nikon compression 34713). Strips are 16 bytes each and lie inside the file."""
    bo = "<"

    def layout(sub_off, exif_off, strip0, strip1):
        ifd0 = [(0x00FE, LONG, 1), (0x0100, LONG, 2), (0x0101, LONG, 2), (0x0102, SHORT, [8, 8, 8]),
                (0x0103, SHORT, 1), (0x0106, SHORT, 2), (0x010F, ASCII, "NIKON CORPORATION"),
                (0x0110, ASCII, model), (0x0111, LONG, strip0), (0x0112, SHORT, 1), (0x0115, SHORT, 3),
                (0x0116, LONG, 2), (0x0117, LONG, 12), (0x0131, ASCII, "Ver.1.00"),
                (0x0132, ASCII, dto), (0x014A, LONG, sub_off), (0x8769, LONG, exif_off)]
        exif = [(0x9003, ASCII, dto), (0x9004, ASCII, dto)]
        sub = [(0x00FE, LONG, 0), (0x0100, LONG, full[0]), (0x0101, LONG, full[1]), (0x0102, SHORT, 14),
               (0x0103, SHORT, 34713), (0x0106, SHORT, 32803), (0x0111, LONG, strip1), (0x0115, SHORT, 1),
               (0x0116, LONG, full[1]), (0x0117, LONG, 16)]
        return ifd0, exif, sub

    # offsets do not change the IFD sizes (LONGs are inline), so lay out once with zeros, then for real
    a, b, c = (ifd(bo, x, base=0) for x in layout(0, 0, 0, 0))
    exif_off = 8 + len(a) + (len(a) % 2)
    sub_off = exif_off + len(b) + (len(b) % 2)
    strip0 = sub_off + len(c) + (len(c) % 2)
    strip1 = strip0 + 16
    i0, ex, sb = layout(sub_off, exif_off, strip0, strip1)
    out = b"II" + struct.pack("<HI", 42, 8) + ifd(bo, i0, base=8)
    out += b"\0" * (exif_off - len(out)) + ifd(bo, ex, base=exif_off)
    out += b"\0" * (sub_off - len(out)) + ifd(bo, sb, base=sub_off)
    out += b"\0" * (strip0 - len(out))
    out += bytes([0x80, 0x40, 0x20] * 4) + b"\0" * 4          # preview strip (12 bytes used)
    out += bytes(range(16))                                    # "raw" strip
    return out


# ---------------------------------------------------------------------------------------------
# raw/: RAW files whose thumbnails come from an embedded JPEG preview, and raw-expected.json
# ---------------------------------------------------------------------------------------------
def dng_with_preview(preview, *, size, orientation, cfa=(32, 24)):
    """Little-endian DNG-like TIFF: IFD0 = the JPEG `preview` (NewSubfileType 1, Compression 7,
    YCbCr, one strip, Orientation), one SubIFD = a tiny uncompressed 16-bit CFA raw (NewSubfileType 0).
    Returns (bytes, preview offset)."""
    bo = "<"
    raw = b"".join(struct.pack("<H", (x * 37 + y * 101) & 0x3FFF) for y in range(cfa[1]) for x in range(cfa[0]))

    def layout(sub_off, strip0, strip1):
        ifd0 = [(0x00FE, LONG, 1), (0x0100, LONG, size[0]), (0x0101, LONG, size[1]), (0x0102, SHORT, [8, 8, 8]),
                (0x0103, SHORT, 7), (0x0106, SHORT, 6), (0x010F, ASCII, "Shoebox"), (0x0110, ASCII, "Fixture DNG"),
                (0x0111, LONG, strip0), (0x0112, SHORT, orientation), (0x0115, SHORT, 3), (0x0116, LONG, size[1]),
                (0x0117, LONG, len(preview)), (0x014A, LONG, sub_off), (0xC612, BYTE, [1, 4, 0, 0]),
                (0xC614, ASCII, "Shoebox Fixture DNG")]
        sub = [(0x00FE, LONG, 0), (0x0100, LONG, cfa[0]), (0x0101, LONG, cfa[1]), (0x0102, SHORT, 16),
               (0x0103, SHORT, 1), (0x0106, SHORT, 32803), (0x0111, LONG, strip1), (0x0115, SHORT, 1),
               (0x0116, LONG, cfa[1]), (0x0117, LONG, len(raw)), (0x828D, SHORT, [2, 2]),
               (0x828E, BYTE, [0, 1, 1, 2])]
        return ifd0, sub

    a, b = (ifd(bo, x, base=0) for x in layout(0, 0, 0))
    sub_off = 8 + len(a) + (len(a) % 2)
    strip0 = sub_off + len(b) + (len(b) % 2)
    strip1 = strip0 + len(preview) + (len(preview) % 2)
    i0, sb = layout(sub_off, strip0, strip1)
    out = b"II" + struct.pack("<HI", 42, 8) + ifd(bo, i0, base=8)
    out += b"\0" * (sub_off - len(out)) + ifd(bo, sb, base=sub_off)
    out += b"\0" * (strip0 - len(out)) + preview
    out += b"\0" * (strip1 - len(out)) + raw
    return out, strip0


def raf_with_preview(jpeg, *, model="X-T30", cfa_len=64):
    """Fujifilm RAF layout: 'FUJIFILMCCD-RAW ' header; at byte 84 the JPEG offset and length (big-endian),
    then the CFA header and CFA offsets/lengths. The JPEG carries the EXIF (and its Orientation).
    Returns (bytes, JPEG offset)."""
    head = b"FUJIFILMCCD-RAW " + b"0201" + b"FF129502" + model.encode().ljust(32, b"\0") + b"0100" + b"\0" * 20
    assert len(head) == 84
    jpeg_off = 160
    cfa_off = jpeg_off + len(jpeg) + (len(jpeg) % 2)
    head += struct.pack(">IIIIII", jpeg_off, len(jpeg), 0, 0, cfa_off, cfa_len)
    out = head + b"\0" * (jpeg_off - len(head)) + jpeg
    out += b"\0" * (cfa_off - len(out)) + bytes((i * 29) & 0xFF for i in range(cfa_len))
    return out, jpeg_off


def build_raw(root, tmp):
    """Writes root/raw/* and returns raw-expected.json's content. See Fixtures/README.md."""
    d = os.path.join(root, "raw")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    files = []
    # DNG: a 640x480 JPEG preview without EXIF, IFD0 Orientation 6 (display: 480x640, turned clockwise).
    pv = ffmpeg_jpeg(os.path.join(tmp, "raw-dng.jpg"), "640x480")
    dng, off = dng_with_preview(pv, size=(640, 480), orientation=6)
    with open(os.path.join(d, "preview.dng"), "wb") as f:
        f.write(dng)
    files.append({"file": "raw/preview.dng", "kind": "dng",
                  "preview": {"offset": off, "length": len(pv), "width": 640, "height": 480,
                              "location": "IFD0 strip", "jpegOrientation": None, "rawOrientation": 6},
                  "displayWidth": 480, "displayHeight": 640,
                  "note": "The JPEG has no EXIF: the RAW's IFD0 Orientation 6 must be applied."})
    # RAF: a 480x320 JPEG whose own EXIF says Orientation 8 (display: 320x480, turned counter-clockwise).
    base = ffmpeg_jpeg(os.path.join(tmp, "raw-raf.jpg"), "480x320")
    tiff = exif_tiff([(0x010F, ASCII, "FUJIFILM"), (0x0110, ASCII, "X-T30"), (0x0112, SHORT, 8)],
                     [(0x9003, ASCII, "2024:05:04 11:00:00")], bo="<")
    jp = jpeg_with_segments(base, [(0xE1, b"Exif\0\0" + tiff)])
    raf, off = raf_with_preview(jp)
    with open(os.path.join(d, "preview.raf"), "wb") as f:
        f.write(raf)
    files.append({"file": "raw/preview.raf", "kind": "raf",
                  "preview": {"offset": off, "length": len(jp), "width": 480, "height": 320,
                              "location": "RAF header JPEG", "jpegOrientation": 8, "rawOrientation": 1},
                  "displayWidth": 320, "displayHeight": 480,
                  "note": "The JPEG's own EXIF Orientation 8 applies (libvips reads it)."})
    return {"generator": "Fixtures/generate.py", "files": files}


def build_library(root, tmp):
    """Writes root/library/* and root/library-expected.json. See Fixtures/README.md."""
    lib = os.path.join(root, "library")
    shutil.rmtree(lib, ignore_errors=True)
    written = []

    def put(rel, data):
        p = os.path.join(lib, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(data)
        written.append(rel)
        return p

    # --- bases --------------------------------------------------------------------------------
    j64 = ffmpeg_jpeg(os.path.join(tmp, "l64.jpg"), "64x48")
    j48 = ffmpeg_jpeg(os.path.join(tmp, "l48.jpg"), "48x48")
    j96 = ffmpeg_jpeg(os.path.join(tmp, "l96.jpg"), "96x64")
    jpano = ffmpeg_jpeg(os.path.join(tmp, "lpano.jpg"), "300x60")
    base_lp = ffmpeg_movie(os.path.join(tmp, "llp.mov"), 30, 30, 600)
    base240 = ffmpeg_movie(os.path.join(tmp, "l240.mov"), 240, 48, 2400)
    rp_utc = 1589052817
    base_rp = ffmpeg_movie(os.path.join(tmp, "lrp.mp4"), 30, 15, 600, size="48x64", fmt="mp4",
                           creation=utc_text(rp_utc).replace("+00:00", "Z"))

    def iphone_jpeg(base, *, cid, dto, subsec, offset="+02:00", custom_rendered=None, makernote=True):
        mn = apple_makernote("MM", content_id=cid, burst_uuid=None, hdr_type=None,
                             processing_flags=None) if makernote else None
        return apple_jpeg(base, makernote=mn, custom_rendered=custom_rendered, dto=dto, subsec=subsec,
                          offset=offset)[0]

    def live_movie(cid, cdate, *, auto=True):
        """A Live Photo movie: movie keys (content.identifier unless cid is None) + mebx still-image-time."""
        mv = mvhd_info(base_lp)
        items = ([(K_AUTO, "uint8", 1)] if auto else []) + [(K_INTENT, "int64", 1)]
        if cid is not None:
            items.append((K_CID, "utf8", cid))
        items += [(K_MAKE, "utf8", MAKE), (K_MODEL, "utf8", MODEL), (K_SW, "utf8", SOFTWARE),
                  (K_CDATE, "utf8", cdate)]
        top = parse_boxes(base_lp)
        mdat_pos = top[-1][1] - top[-1][3]
        trak = mebx_still_image_time_trak(mv["next_track_id"], 1, mv["ctime"], mv["timescale"],
                                          mv["timescale"] // 2, mdat_pos + 8)
        data, off = assemble_mov(base_lp, track_meta=mdta_meta([(K_LENS, "utf8", LENS)], locale=0x555315C7),
                                 movie_meta=mdta_meta(items), extra_traks=[trak], extra_mdat=STILL_SAMPLE,
                                 next_track_id=mv["next_track_id"] + 1)
        assert off == mdat_pos + 8
        return data

    def hfr_movie(intent_kind, intent, cdate):
        items = [(K_INTENT, intent_kind, intent), (K_CDATE, "utf8", cdate), (K_MAKE, "utf8", MAKE),
                 (K_MODEL, "utf8", MODEL)]
        return assemble_mov(base240, movie_meta=mdta_meta(items))[0]

    def android_jpeg(base, *, dto, offset=None, subsec=None, model="Pixel 3"):
        return apple_jpeg(base, make="Google", model=model, software="HDR+ 1.0.250213809zd", lens=False,
                          dto=dto, offset=offset, subsec=subsec)[0]

    # --- 1. iphone/ -----------------------------------------------------------------------------
    put("iphone/IMG_0001.JPG", iphone_jpeg(j64, cid=LIB_CID_A, dto="2024:05:01 12:34:56", subsec="123"))
    put("iphone/IMG_0001.MOV", live_movie(LIB_CID_A, "2024-05-01T12:34:56+0200"))
    put("iphone/IMG_E0001.JPG", iphone_jpeg(j48, cid=LIB_CID_B, dto="2024:05:01 12:34:56", subsec="123"))
    put("iphone/IMG_E0001.MOV", live_movie(LIB_CID_B, "2024-05-01T12:34:56+0200", auto=False))
    adj_json = ('{"adjustments":[{"identifier":"Crop","enabled":true,"settings":{}}],'
                '"metadata":{"orientation":1},"formatVersion":1}')
    aae, aae_blob = aae_plist(adj_json)
    put("iphone/IMG_0001.AAE", aae)
    put("iphone/IMG_0002.JPG", iphone_jpeg(j64, cid=LIB_CID_C, dto="2024:05:01 13:00:00", subsec="250"))
    put("iphone/clip-from-phone.mov", live_movie(LIB_CID_C, "2024-05-01T13:00:00+0200"))
    put("iphone/IMG_0003.JPG", iphone_jpeg(j64, cid=None, dto="2024:05:01 13:10:59", subsec="600"))
    put("iphone/IMG_0003.MOV", live_movie(None, "2024-05-01T13:11:00+0200"))
    put("iphone/IMG_0004.MOV", live_movie(LIB_CID_D, "2024-05-01T13:20:00+0200"))
    put("iphone/IMG_0005.MOV", hfr_movie("int8", 0, "2024-05-01T13:30:00+0200"))
    put("iphone/IMG_0006.MOV", hfr_movie("int64", 1, "2024-05-01T13:31:00+0200"))
    put("iphone/IMG_0007.JPG", iphone_jpeg(jpano, cid=None, dto="2024:05:01 13:40:00", subsec="000",
                                           custom_rendered=6, makernote=False))
    put("iphone/RPReplay_Final1589052817.MP4", base_rp)
    o_aae, _ = aae_plist('{"adjustments":[],"metadata":{"orientation":1},"formatVersion":1}',
                         editor="com.apple.camera", version="1.4")
    put("iphone/IMG_O0008.AAE", o_aae)

    # --- 2. camera/ -----------------------------------------------------------------------------
    put("camera/DSC_0010.JPG", apple_jpeg(j96, make="NIKON CORPORATION", model="NIKON D7500",
                                          software="Ver.1.00", dto="2024:05:02 15:00:00", offset=None,
                                          subsec=None, lens=False)[0])
    put("camera/DSC_0010.NEF", nef_tiff(model="NIKON D7500", dto="2024:05:02 15:00:00"))
    put("camera/DSC_0011.NEF", nef_tiff(model="NIKON D7500", dto="2024:05:02 15:00:10"))

    # --- 3. takeout/ ----------------------------------------------------------------------------
    tk = "takeout/Google Photos/Trip 2019/"
    geo = (48.8583, 2.2945, 35.0)
    t_main = 1562235194                              # 2019-07-04T10:13:14Z = 12:13:14 at +02:00
    put(tk + "IMG_20190704_121314.jpg", android_jpeg(j64, dto="2019:07:04 12:13:14"))
    put(tk + "IMG_20190704_121314-edited.jpg", android_jpeg(j48, dto="2019:07:04 12:13:14"))
    put(tk + takeout_json_name("IMG_20190704_121314.jpg"), takeout_json("IMG_20190704_121314.jpg", t_main, geo))
    long_name = "PXL_20190704_121314123.PORTRAIT-01.COVER-edited-long.jpg"
    long_json = takeout_json_name(long_name)
    assert len(long_json) == TAKEOUT_JSON_NAME_MAX, long_json
    t_long = 1562242800                              # 2019-07-04T12:20:00Z
    put(tk + long_name, android_jpeg(j64, dto="2019:07:04 14:20:00", offset="+02:00", subsec="123"))
    put(tk + long_json, takeout_json(long_name, t_long, geo))
    sup_name = "PXL_20190706_080910123.jpg"
    sup_json = takeout_json_name(sup_name, supplemental=True)
    t_sup = 1562393350                               # 2019-07-06T06:09:10Z
    put(tk + sup_name, android_jpeg(j64, dto="2019:07:06 08:09:10", offset="+02:00", subsec="123"))
    put(tk + sup_json, takeout_json(sup_name, t_sup, None))
    t99, t99b = 1562342400, 1562344200               # 2019-07-05T16:00:00Z, 16:30:00Z
    put(tk + "IMG_0099.jpg", apple_jpeg(j64, model="iPhone XS", software="12.3.1", dto="2019:07:05 18:00:00",
                                        offset=None, subsec="451", lens=False)[0])
    put(tk + takeout_json_name("IMG_0099.jpg"), takeout_json("IMG_0099.jpg", t99, None, device="IOS_PHONE"))
    put(tk + "IMG_0099(1).jpg", apple_jpeg(j64, model="iPhone XS", software="12.3.1",
                                           dto="2019:07:05 18:30:00", offset=None, subsec="452", lens=False)[0])
    put(tk + takeout_json_name("IMG_0099.jpg", counter="(1)"), takeout_json("IMG_0099.jpg", t99b, None, device="IOS_PHONE"))
    fb_ms = 1562245994512                            # a Facebook-saved image: no EXIF at all
    fb_name = f"FB_IMG_{fb_ms}.jpg"
    put(tk + fb_name, jpeg_with_segments(j64, []))
    put(tk + takeout_json_name(fb_name), takeout_json(fb_name, fb_ms // 1000, None))
    album = {"title": "Trip 2019", "description": "", "access": "protected",
             "date": {"timestamp": "1562284800", "formatted": takeout_formatted(1562284800)},
             "location": "", "geoData": {"latitude": 0.0, "longitude": 0.0, "altitude": 0.0,
                                         "latitudeSpan": 0.0, "longitudeSpan": 0.0}}
    put(tk + "metadata.json", (json.dumps(album, indent=2) + "\n").encode())
    put(tk + "broken.jpg", android_jpeg(j64, dto="2019:07:07 10:00:00"))
    put(tk + "broken.jpg.json", b'{\n  "title": "broken.jpg",\n  ')

    # --- 4. xmp/ --------------------------------------------------------------------------------
    xns = (' xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:exif="http://ns.adobe.com/exif/1.0/"')
    put("xmp/DSC_0100.JPG", jpeg_with_segments(j64, []))
    put("xmp/DSC_0100.JPG.xmp", xmp_packet('\n    xmp:Rating="5"\n    exif:DateTimeOriginal="2024-05-03T09:00:00+02:00"',
                                          ns=xns).encode())
    put("xmp/DSC_0101.JPG", apple_jpeg(j64, make="NIKON CORPORATION", model="NIKON D7500", software="Ver.1.00",
                                       orientation=8, dto="2024:05:03 09:05:00", offset=None, subsec=None,
                                       lens=False)[0])
    put("xmp/DSC_0101.xmp", xmp_packet('\n    xmp:Rating="3"\n    exif:DateTimeOriginal="2024-05-03T09:05:00"',
                                      ns=xns).encode())

    # --- 5. bad/ --------------------------------------------------------------------------------
    put("bad/IMG_0200.JPG", iphone_jpeg(j64, cid=LIB_CID_E, dto="2024:05:02 10:00:00", subsec="100"))
    put("bad/IMG_0201.JPG", iphone_jpeg(j64, cid=LIB_CID_E, dto="2024:05:02 10:00:05", subsec="200"))
    put("bad/IMG_0200.MOV", live_movie(LIB_CID_E, "2024-05-02T10:00:00+0200"))
    put("bad/IMG_0210.JPG", iphone_jpeg(j64, cid=LIB_CID_F, dto="2024:05:02 10:10:00", subsec="100"))
    put("bad/IMG_0211.JPG", iphone_jpeg(j64, cid=LIB_CID_F, dto="2024:05:02 10:10:05", subsec="200"))
    put("bad/IMG_0211.MOV", live_movie(LIB_CID_F, "2024-05-02T10:10:05+0200"))
    put("bad/IMG_0202.JPG", iphone_jpeg(j64, cid=None, dto="2024:05:02 10:01:00", subsec="300"))
    put("bad/IMG_0202.AAE", aae[:180])               # an XML plist cut short: sniffs as AAE, does not parse
    put("bad/IMG_0203.JPG", iphone_jpeg(j64, cid=None, dto="2024:05:02 10:02:00", subsec="400"))
    import hashlib
    put("bad/IMG_0203.AAE", hashlib.sha256(b"IMG_0203.AAE").digest() * 4)   # 128 bytes of binary noise

    return lib, written, dict(adj_json=adj_json, aae_blob=aae_blob, long_json=long_json, sup_json=sup_json,
                              t_main=t_main, t_long=t_long, t_sup=t_sup, t99=t99, t99b=t99b,
                              fb_name=fb_name, fb_ts=fb_ms // 1000, rp_utc=rp_utc, geo=geo)


def library_expected(files, info):
    """The assets a correct assembler builds from library/ (what the rules say is right, not what the
    current code does), the orphans, and the notes it must raise."""
    tk = "takeout/Google Photos/Trip 2019/"
    geo = {"latitude": info["geo"][0], "longitude": info["geo"][1], "altitude": info["geo"][2]}

    def asset(id_, media, *, resources, subtypes=(), traits=(), style=None, cid=None, adj=False, date,
              size=(64, 48), duration=None, paired=None, sources=(), location=None, favorite=False,
              confidence=None, note):
        return {
            "id": id_, "mediaType": media, "mediaSubtypes": list(subtypes), "traits": list(traits),
            "playbackStyle": style or ("image" if media == "image" else "video"),
            "resources": [{"type": t, "path": p} for t, p in resources],
            "contentIdentifier": cid, "burstIdentifier": None, "hasAdjustments": adj,
            "creationDate": date, "pixelWidth": size[0], "pixelHeight": size[1],
            "duration": duration if media == "video" else None, "pairedVideoDuration": paired,
            "metadataSources": [{"type": t, "path": p} for t, p in sources],
            "location": location, "favorite": favorite, "pairingConfidence": confidence, "note": note,
        }

    i, c, x, b = "iphone/", "camera/", "xmp/", "bad/"
    assets = [
        # --- iphone/
        asset(i + "IMG_0001.JPG", "image", subtypes=["photoLive"], traits=["edited"], style="livePhoto",
              resources=[("photo", i + "IMG_0001.JPG"), ("pairedVideo", i + "IMG_0001.MOV"),
                         ("fullSizePhoto", i + "IMG_E0001.JPG"), ("fullSizePairedVideo", i + "IMG_E0001.MOV"),
                         ("adjustmentData", i + "IMG_0001.AAE")],
              cid=LIB_CID_A, adj=True, date="2024-05-01T12:34:56.123+02:00", paired=1.0, confidence="high",
              note="Edited Live Photo. The original pair shares identifier A; Photos' render pair "
                   "(IMG_E0001.JPG/.MOV) carries a NEW identifier B and belongs to the original by name "
                   "(IMG_E<n> -> IMG_<n>). IMG_0001.AAE is a com.apple.photo 1.5 plist (raw-DEFLATE JSON, a "
                   "Crop). Pixel size is the original's 64x48 (the render is cropped to 48x48), as for "
                   "corpus wedding.jpg. contentIdentifier is the original's (A)."),
        asset(i + "IMG_0002.JPG", "image", subtypes=["photoLive"], style="livePhoto",
              resources=[("photo", i + "IMG_0002.JPG"), ("pairedVideo", i + "clip-from-phone.mov")],
              cid=LIB_CID_C, date="2024-05-01T13:00:00.250+02:00", paired=1.0, confidence="high",
              note="Paired by content identifier C alone: the movie's name has nothing in common with the still's."),
        asset(i + "IMG_0003.JPG", "image", subtypes=["photoLive"], style="livePhoto",
              resources=[("photo", i + "IMG_0003.JPG"), ("pairedVideo", i + "IMG_0003.MOV")],
              date="2024-05-01T13:10:59.600+02:00", paired=1.0, confidence="medium",
              note="Neither file has a content identifier (the still has an Apple maker note without 0x0011, "
                   "the movie has still-image-time but no content.identifier). Same folder, same stem, capture "
                   "times 0.4 s apart across a second boundary (13:10:59.600 vs 13:11:00, both +02:00): "
                   "fallback pairing, medium confidence."),
        asset(i + "IMG_0004.MOV", "video", resources=[("video", i + "IMG_0004.MOV")], cid=LIB_CID_D,
              date="2024-05-01T13:20:00+02:00", duration=1.0,
              note="A Live Photo movie (identifier D, still-image-time track) whose still is missing: a plain "
                   "video that keeps its contentIdentifier."),
        asset(i + "IMG_0005.MOV", "video", subtypes=["videoHighFrameRate"], traits=["slomo"],
              resources=[("video", i + "IMG_0005.MOV")], date="2024-05-01T13:30:00+02:00", duration=0.2,
              note="48 frames in 0.2 s = 240 fps measured; full-frame-rate-playback-intent = 0 (int8): slo-mo."),
        asset(i + "IMG_0006.MOV", "video", subtypes=["videoHighFrameRate"],
              resources=[("video", i + "IMG_0006.MOV")], date="2024-05-01T13:31:00+02:00", duration=0.2,
              note="240 fps measured but intent = 1 (8-byte int): high frame rate, NOT slo-mo."),
        asset(i + "IMG_0007.JPG", "image", subtypes=["photoPanorama"], resources=[("photo", i + "IMG_0007.JPG")],
              date="2024-05-01T13:40:00.000+02:00", size=(300, 60),
              note="Make Apple, CustomRendered 6, 300x60, no maker note."),
        asset(i + "RPReplay_Final1589052817.MP4", "video", subtypes=["videoScreenRecording"],
              traits=["screenRecordingByName"], resources=[("video", i + "RPReplay_Final1589052817.MP4")],
              date=utc_text(info["rp_utc"]), size=(48, 64), duration=0.5,
              note="Plain ffmpeg MP4, no Apple keys: a screen recording only by its name. The date is the "
                   "mvhd creation time (UTC), which matches the Unix time in the name."),
        # --- camera/
        asset(c + "DSC_0010.JPG", "image",
              resources=[("photo", c + "DSC_0010.JPG"), ("alternatePhoto", c + "DSC_0010.NEF")],
              date="2024-05-02T15:00:00", size=(96, 64),
              note="RAW+JPEG: the JPEG is the primary (PHAssetResourceType.alternatePhoto doc: 'a JPEG file "
                   "(the primary form of the asset) and a RAW file (the alternate photo)'; Photos keeps UTI "
                   "public.jpeg for such pairs, osxphotos #469). The asset's subtypes, traits and size are "
                   "the primary's, so NO 'raw' trait and 96x64, not the NEF's 6000x4000. No offset in the "
                   "files: a floating local time."),
        asset(c + "DSC_0011.NEF", "image", traits=["raw"], resources=[("photo", c + "DSC_0011.NEF")],
              date="2024-05-02T15:00:10", size=(6000, 4000),
              note="A NEF alone: the primary is RAW -> trait raw; size from the SubIFD with NewSubfileType 0 "
                   "(IFD0 is a 2x2 preview)."),
        # --- takeout/
        asset(tk + "FB_IMG_1562245994512.jpg", "image", resources=[("photo", tk + info["fb_name"])],
              date=utc_text(info["fb_ts"]),
              sources=[("googleTakeoutJson", tk + info["fb_name"] + ".json")],
              note="No EXIF at all: creationDate comes from the JSON photoTakenTime, in UTC."),
        asset(tk + "IMG_0099(1).jpg", "image", resources=[("photo", tk + "IMG_0099(1).jpg")],
              date="2019-07-05T18:30:00.452", sources=[("googleTakeoutJson", tk + "IMG_0099.jpg(1).json")],
              note="Duplicate name: Takeout numbers the media IMG_0099(1).jpg and moves the counter behind the "
                   "extension in the JSON name. IMG_0099.jpg.json belongs to the other file."),
        asset(tk + "IMG_0099.jpg", "image", resources=[("photo", tk + "IMG_0099.jpg")],
              date="2019-07-05T18:00:00.451", sources=[("googleTakeoutJson", tk + "IMG_0099.jpg.json")],
              note="The un-numbered twin of IMG_0099(1).jpg."),
        asset(tk + "IMG_20190704_121314.jpg", "image", traits=["edited"],
              resources=[("photo", tk + "IMG_20190704_121314.jpg"),
                         ("fullSizePhoto", tk + "IMG_20190704_121314-edited.jpg")],
              adj=True, date="2019-07-04T12:13:14", location=geo,
              sources=[("googleTakeoutJson", tk + "IMG_20190704_121314.jpg.json")],
              note="EXIF date without offset (floating; the JSON's UTC time agrees at +02:00, an inferred offset "
                   "is welcome but not required). Location from the JSON geoData (the file has no GPS). The "
                   "-edited copy is a fullSizePhoto and shares the original's JSON, which is listed once."),
        asset(tk + "PXL_20190704_121314123.PORTRAIT-01.COVER-edited-long.jpg", "image",
              resources=[("photo", tk + "PXL_20190704_121314123.PORTRAIT-01.COVER-edited-long.jpg")],
              date="2019-07-04T14:20:00.123+02:00", location=geo,
              sources=[("googleTakeoutJson", tk + info["long_json"])],
              note=f"JSON name cut to 51 characters ('.json' included): {info['long_json']}. '-edited-long' is "
                   f"not an edit suffix: this is an original, not a render."),
        asset(tk + "PXL_20190706_080910123.jpg", "image", resources=[("photo", tk + "PXL_20190706_080910123.jpg")],
              date="2019-07-06T08:09:10.123+02:00", sources=[("googleTakeoutJson", tk + info["sup_json"])],
              note=f"Newer Takeout naming: <name>.supplemental-metadata.json, cut to 51 characters: {info['sup_json']}."),
        asset(tk + "broken.jpg", "image", resources=[("photo", tk + "broken.jpg")], date="2019-07-07T10:00:00",
              note="Its JSON is truncated and unusable: the asset stands on the file's own EXIF; the JSON is an "
                   "orphan."),
        # --- xmp/
        asset(x + "DSC_0100.JPG", "image", resources=[("photo", x + "DSC_0100.JPG")],
              date="2024-05-03T09:00:00+02:00", favorite=True, sources=[("xmpSidecar", x + "DSC_0100.JPG.xmp")],
              note="The JPEG has no EXIF: creationDate from the x.jpg.xmp sidecar's exif:DateTimeOriginal; "
                   "xmp:Rating 5 -> favorite."),
        asset(x + "DSC_0101.JPG", "image", resources=[("photo", x + "DSC_0101.JPG")], date="2024-05-03T09:05:00",
              size=(48, 64), sources=[("xmpSidecar", x + "DSC_0101.xmp")],
              note="x.xmp sidecar naming (stem only). EXIF Orientation 8: the 64x48 pixels display as 48x64. "
                   "xmp:Rating 3: not a favorite. The EXIF date wins over the sidecar's (same value)."),
        # --- bad/
        asset(b + "IMG_0200.JPG", "image", subtypes=["photoLive"], style="livePhoto",
              resources=[("photo", b + "IMG_0200.JPG"), ("pairedVideo", b + "IMG_0200.MOV")], cid=LIB_CID_E,
              date="2024-05-02T10:00:00.100+02:00", paired=1.0, confidence="high",
              note="Identifier E is on two stills and one movie: the movie goes to the still with its stem."),
        asset(b + "IMG_0201.JPG", "image", resources=[("photo", b + "IMG_0201.JPG")], cid=LIB_CID_E,
              date="2024-05-02T10:00:05.200+02:00", note="The other still with identifier E: a plain photo."),
        asset(b + "IMG_0202.JPG", "image", resources=[("photo", b + "IMG_0202.JPG")],
              date="2024-05-02T10:01:00.300+02:00",
              note="Its AAE is an XML plist cut short (it sniffs as a plist, does not parse): no adjustment "
                   "data can be read, so no adjustmentData resource and hasAdjustments false; the AAE is an "
                   "orphan with the reason."),
        asset(b + "IMG_0203.JPG", "image", resources=[("photo", b + "IMG_0203.JPG")],
              date="2024-05-02T10:02:00.400+02:00",
              note="Its AAE is 128 bytes of binary noise: same treatment as IMG_0202."),
        asset(b + "IMG_0210.JPG", "image", resources=[("photo", b + "IMG_0210.JPG")], cid=LIB_CID_F,
              date="2024-05-02T10:10:00.100+02:00",
              note="Identifier F on IMG_0210.JPG, IMG_0211.JPG and IMG_0211.MOV. The same-stem still is the one "
                   "that sorts SECOND: IMG_0210.JPG stays a plain photo."),
        asset(b + "IMG_0211.JPG", "image", subtypes=["photoLive"], style="livePhoto",
              resources=[("photo", b + "IMG_0211.JPG"), ("pairedVideo", b + "IMG_0211.MOV")], cid=LIB_CID_F,
              date="2024-05-02T10:10:05.200+02:00", paired=1.0, confidence="high",
              note="Same stem and same capture second as IMG_0211.MOV: this is the Live Photo."),
    ]
    assets.sort(key=lambda a: a["id"])
    orphans = [
        {"path": b + "IMG_0202.AAE", "kind": "aae",
         "reason": "unreadable AAE (XML property list cut short at 180 bytes); not attached to bad/IMG_0202.JPG"},
        {"path": b + "IMG_0203.AAE", "kind": "aae",
         "reason": "unreadable AAE (not a property list: binary noise); not attached to bad/IMG_0203.JPG"},
        {"path": i + "IMG_O0008.AAE", "kind": "aae", "reason": "no media file with stem IMG_0008 in folder"},
        {"path": tk + "broken.jpg.json", "kind": "json",
         "reason": "malformed JSON (truncated): not usable as Google Takeout metadata for broken.jpg"},
        {"path": tk + "metadata.json", "kind": "googleTakeoutAlbumJson",
         "reason": "album-level Takeout metadata (title/date of the album folder), not attached to any media file"},
    ]
    notes = [
        {"about": "sharedContentIdentifier", "contentIdentifier": LIB_CID_E,
         "paths": [b + "IMG_0200.JPG", b + "IMG_0201.JPG"], "paired": b + "IMG_0200.JPG"},
        {"about": "sharedContentIdentifier", "contentIdentifier": LIB_CID_F,
         "paths": [b + "IMG_0210.JPG", b + "IMG_0211.JPG"], "paired": b + "IMG_0211.JPG"},
    ]
    claimed = {r["path"] for a in assets for r in a["resources"]} | \
              {s["path"] for a in assets for s in a["metadataSources"]} | {o["path"] for o in orphans}
    assert claimed == set(files), sorted(set(files) ^ claimed)
    return {
        "generator": "Fixtures/generate.py",
        "root": "library",
        "rules": ("One object per asset, ids and paths relative to library/. Live Photo = still MakerNote 0x0011 "
                  "ContentIdentifier == movie com.apple.quicktime.content.identifier (high confidence); only "
                  "when a side has no identifier: same folder + same stem + capture within 1 s (medium). A "
                  "shared identifier pairs the movie with the same-stem still, the others stay plain photos "
                  "and a note is raised. IMG_E<n>/-edited/_edited renders are fullSize* resources of the "
                  "original (hasAdjustments true, trait edited); a readable IMG_<n>.AAE is adjustmentData and "
                  "sets hasAdjustments; IMG_O<n>.AAE does not; an unreadable AAE is an orphan. RAW+JPEG with "
                  "one stem = one asset, JPEG primary, RAW alternatePhoto, facts from the primary. Takeout "
                  "JSON and XMP sidecars are metadataSources; file EXIF wins, sidecars fill gaps (date, "
                  "location, favorite from xmp:Rating 5). Pixel size is the primary original's, display-"
                  "oriented. creationDate: compare the local wall-clock time always, the offset only where "
                  "the expected value has one."),
        "takeoutJsonNameRule": ("<media name>[.supplemental-metadata] cut to 46 characters, then the '(n)' "
                                "counter of a duplicate media name, then '.json' (51 characters at most "
                                "without a counter)"),
        "aae": {i + "IMG_0001.AAE": {"adjustmentFormatIdentifier": "com.apple.photo",
                                     "adjustmentFormatVersion": "1.5",
                                     "adjustmentEditorBundleID": "com.apple.mobileslideshow",
                                     "adjustmentDataJSON": info["adj_json"],
                                     "adjustmentDataLength": len(info["aae_blob"])}},
        "assets": assets,
        "orphans": orphans,
        "notes": notes,
    }


def describe_quirk(e):
    tags = e["ffprobe"]["formatTags"]
    v = e["ffprobe"]["streams"][0]
    parts = []
    for k, want in e["movieKeys"].items():
        got = tags.get(k)
        if got is None:
            parts.append(f"{k} missing")
        elif str(got) != str(want) and not (isinstance(want, float) and abs(float(got) - want) < 1e-5):
            parts.append(f"{k} = {got!r} (true value {want!r})")
    if e["trackKeys"]:
        seen = [k for k in e["trackKeys"]["keys"] if k in tags or k in v["tags"]]
        if not seen:
            parts.append("video-track keys (" + ", ".join(e["trackKeys"]["keys"]) + ") not reported")
        leaked = [f"{k}={tags[k]!r}" for k in tags if k not in e["movieKeys"] and k.startswith("com.")]
        if leaked:
            parts.append("unexpected keys " + ", ".join(leaked))
    rf = v["r_frame_rate"]
    n, d = (int(x) for x in rf.split("/"))
    if abs(n / d - e["nominalFrameRate"]) > 0.01:
        parts.append(f"video r_frame_rate {rf} (real average {e['nominalFrameRate']:g} fps, "
                     f"avg_frame_rate {v['avg_frame_rate']})")
    if e.get("stillImageTime") is not None:
        data = [s for s in e["ffprobe"]["streams"] if s["codec_type"] == "data"]
        parts.append("timed-metadata track only seen as a data stream (" +
                     ", ".join(f"codec_tag {s['codec_tag_string']}, handler {s['tags'].get('handler_name')!r}"
                               for s in data) + "); still-image-time is not decoded")
    return "; ".join(parts) if parts else "none"


if __name__ == "__main__":
    main()
