#!/usr/bin/env python3
"""Long-tail fixtures: TIFFs whose directories sit far into the file, BigTIFF, RAW-or-not TIFFs, the
still formats beyond JPEG/PNG/HEIF (BMP, PSD, JPEG 2000, JPEG XL, ICO, TGA, Netpbm, MPO), audio files,
and JPEG oddities (DNL height, IPTC dates, malformed XMP dates, GPS 0/0 seconds).

Usage:  python3 Fixtures/longtail.py [--out DIR]   (default: Fixtures/generated; writes DIR/longtail/ and
        DIR/longtail-expected.json). Also run by Fixtures/generate.py.

Needs python3 (stdlib) and ffmpeg 5.1 (bmp, targa, pam/pgm/ppm, jpeg2000, aac, libmp3lame, pcm). Byte-identical
on every run: ffmpeg in bitexact mode, fixed dates, no clock. The two large TIFFs are mostly zeros
(they compress to a few KB in git).
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from generate import (ASCII, BITEXACT, BYTE, LONG, RATIONAL, SHORT, chunk, exif_tiff, ffmpeg_jpeg, ifd,  # noqa: E402
                      ihdr, jpeg_with_segments, raw_rgb, run, xmp_packet)

HERE = os.path.dirname(os.path.abspath(__file__))
DTO = "2021:07:22 10:18:45"


def xmp(attrs):
    """An XMP packet whose rdf:Description carries `attrs` (xmp:, photoshop:, exif: properties)."""
    ns = (' xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/"'
          ' xmlns:exif="http://ns.adobe.com/exif/1.0/"')
    return xmp_packet("".join(f' {k}="{v}"' for k, v in attrs.items()), ns=ns).encode()


def gps_entries(lat, lon, sec_den=1):
    """GPS IFD entries for a southern/eastern position given as (deg, min, sec) triples."""
    (ld, lm, ls), (od, om, os_) = lat, lon
    return [(0x0001, ASCII, "S"), (0x0002, RATIONAL, [(ld, 1), (lm, 1), (ls, sec_den)]),
            (0x0003, ASCII, "E"), (0x0004, RATIONAL, [(od, 1), (om, 1), (os_, sec_den)])]


def tiff_ifd0_at_end():
    """Classic TIFF: 100x700 8-bit grey strip (70,000 bytes) first, then IFD0 with Make/Model/XMP, an
    Exif IFD whose ExifImageWidth/Height (4000x3000) disagree with the image, and a GPS IFD."""
    bo = "<"
    w, h = 100, 700
    strip = bytes(w * h)
    ifd0_off = 8 + len(strip)

    def layout(exif_off, gps_off):
        return [(0x00FE, LONG, 0), (0x0100, SHORT, w), (0x0101, SHORT, h), (0x0102, SHORT, 8), (0x0103, SHORT, 1),
                (0x0106, SHORT, 1), (0x010F, ASCII, "DJI"), (0x0110, ASCII, "FC6360"), (0x0111, LONG, 8),
                (0x0112, SHORT, 1), (0x0115, SHORT, 1), (0x0116, LONG, h), (0x0117, LONG, len(strip)),
                (0x02BC, BYTE, list(xmp({"xmp:CreateDate": "2021-07-22T10:18:45+04:00"}))),
                (0x8769, LONG, exif_off), (0x8825, LONG, gps_off)]
    a = ifd(bo, layout(0, 0), base=ifd0_off)
    exif_off = ifd0_off + len(a) + len(a) % 2
    ex = [(0x9003, ASCII, DTO), (0xA002, LONG, 4000), (0xA003, LONG, 3000)]
    b = ifd(bo, ex, base=exif_off)
    gps_off = exif_off + len(b) + len(b) % 2
    g = ifd(bo, gps_entries((20, 26, 2630), (57, 19, 690), sec_den=100), base=gps_off)
    out = b"II" + struct.pack("<HI", 42, ifd0_off) + strip
    out += ifd(bo, layout(exif_off, gps_off), base=ifd0_off)
    out += b"\0" * (exif_off - len(out)) + b
    out += b"\0" * (gps_off - len(out)) + g
    return out


def dng_exif_after_data():
    """DNG-like little-endian TIFF: IFD0 (16x16 preview, DNGVersion, SubIFDs, Exif pointer), one SubIFD
    (NewSubfileType 0, CFA, 1024x512 16-bit = 1 MiB strip, DefaultCropSize 1000x500), then the 1 MiB of
    image data, and only after it the Exif IFD (DateTimeOriginal)."""
    bo = "<"
    raw_w, raw_h = 1024, 512
    raw = bytes(raw_w * raw_h * 2)
    preview = bytes(16 * 16 * 3)

    def layout(sub_off, exif_off, prev_off, raw_off):
        i0 = [(0x00FE, LONG, 1), (0x0100, SHORT, 16), (0x0101, SHORT, 16), (0x0102, SHORT, [8, 8, 8]),
              (0x0103, SHORT, 1), (0x0106, SHORT, 2), (0x010F, ASCII, "Shoebox"), (0x0110, ASCII, "Far Exif DNG"),
              (0x0111, LONG, prev_off), (0x0112, SHORT, 1), (0x0115, SHORT, 3), (0x0116, LONG, 16),
              (0x0117, LONG, len(preview)), (0x014A, LONG, sub_off), (0x8769, LONG, exif_off),
              (0xC612, BYTE, [1, 4, 0, 0])]
        sub = [(0x00FE, LONG, 0), (0x0100, LONG, raw_w), (0x0101, LONG, raw_h), (0x0102, SHORT, 16),
               (0x0103, SHORT, 1), (0x0106, SHORT, 32803), (0x0111, LONG, raw_off), (0x0115, SHORT, 1),
               (0x0116, LONG, raw_h), (0x0117, LONG, len(raw)), (0xC620, LONG, [1000, 500])]
        return i0, sub
    a, c = (ifd(bo, x, base=0) for x in layout(0, 0, 0, 0))
    sub_off = 8 + len(a) + len(a) % 2
    prev_off = sub_off + len(c) + len(c) % 2
    raw_off = prev_off + len(preview)
    exif_off = raw_off + len(raw)
    i0, sb = layout(sub_off, exif_off, prev_off, raw_off)
    out = b"II" + struct.pack("<HI", 42, 8) + ifd(bo, i0, base=8)
    out += b"\0" * (sub_off - len(out)) + ifd(bo, sb, base=sub_off)
    out += b"\0" * (prev_off - len(out)) + preview + raw
    out += ifd(bo, [(0x9003, ASCII, "2024:05:06 07:08:09"), (0xA002, LONG, 6000), (0xA003, LONG, 4000)], base=exif_off)
    return out


def bigtiff():
    """BigTIFF (version 43): IFD0 with a 32x16 grey strip, Make/Model and an Exif IFD pointer (IFD8)."""
    w, h = 32, 16
    strip = bytes(w * h)
    types = {SHORT: ("H", 2), LONG: ("I", 4), 16: ("Q", 8), 18: ("Q", 8)}

    def big_ifd(entries, base):
        entries = sorted(entries)
        data_off = base + 8 + 20 * len(entries) + 8
        table, data = b"", b""
        for tag, typ, value in entries:
            if typ == ASCII:
                raw, count = value.encode() + b"\0", len(value) + 1
            else:
                fmt, _ = types[typ]
                vals = value if isinstance(value, list) else [value]
                raw, count = b"".join(struct.pack("<" + fmt, v) for v in vals), len(vals)
            if len(raw) <= 8:
                field = raw + b"\0" * (8 - len(raw))
            else:
                field = struct.pack("<Q", data_off + len(data))
                data += raw + b"\0" * (len(raw) % 2)
            table += struct.pack("<HHQ", tag, typ, count) + field
        return struct.pack("<Q", len(entries)) + table + struct.pack("<Q", 0) + data

    strip_off = 16
    ifd0_off = strip_off + len(strip)

    def layout(exif_off):
        return [(0x0100, SHORT, w), (0x0101, SHORT, h), (0x0102, SHORT, 8), (0x0103, SHORT, 1), (0x0106, SHORT, 1),
                (0x010F, ASCII, "Shoebox"), (0x0110, ASCII, "BigTIFF Writer"), (0x0111, 16, strip_off),
                (0x0115, SHORT, 1), (0x0116, LONG, h), (0x0117, 16, len(strip)), (0x8769, 18, exif_off)]
    a = big_ifd(layout(0), ifd0_off)
    exif_off = ifd0_off + len(a)
    out = b"II" + struct.pack("<HHHQ", 43, 8, 0, ifd0_off) + strip + big_ifd(layout(exif_off), ifd0_off)
    out += big_ifd([(0x9003, ASCII, "2023:01:02 03:04:05")], exif_off)
    return out


def plain_tiff(make, model, w=24, h=16, pages=1, bits=8):
    """An RGB (or 1-bit, multi-page) TIFF from a maker that also makes RAWs: no sensor data, so a TIFF."""
    bo = "<"
    spp = 3 if bits == 8 else 1
    strip = bytes(((w * bits * spp + 7) // 8) * h)
    out = bytearray(b"II" + struct.pack("<HI", 42, 0))
    offsets = []
    for p in range(pages):
        strip_off = len(out)
        out += strip
        ifd_off = len(out) + len(out) % 2
        out += b"\0" * (ifd_off - len(out))
        offsets.append(ifd_off)
        entries = [(0x00FF, SHORT, 3 if pages > 1 else 1), (0x0100, SHORT, w), (0x0101, SHORT, h),
                   (0x0102, SHORT, [8] * spp if spp > 1 else bits), (0x0103, SHORT, 1), (0x0106, SHORT, 2 if spp > 1 else 0),
                   (0x010F, ASCII, make), (0x0110, ASCII, model), (0x0111, LONG, strip_off), (0x0115, SHORT, spp),
                   (0x0116, LONG, h), (0x0117, LONG, len(strip))]
        blob = ifd(bo, entries, base=ifd_off)
        out += blob
    # Chain the pages: patch each next-IFD pointer.
    for i, off in enumerate(offsets):
        n = struct.unpack_from("<H", out, off)[0]
        struct.pack_into("<I", out, off + 2 + 12 * n, offsets[i + 1] if i + 1 < len(offsets) else 0)
    struct.pack_into("<I", out, 4, offsets[0])
    return bytes(out)


def psd_file():
    """8x4 RGB PSD: image resources with IPTC (0x0404: DateCreated/TimeCreated), Exif (0x0422: a TIFF with
    Orientation 6 and Make) and XMP (0x0424); empty layer section; raw image data."""
    def res(rid, data):
        return b"8BIM" + struct.pack(">H", rid) + b"\0\0" + struct.pack(">I", len(data)) + data + b"\0" * (len(data) % 2)
    iptc = b"\x1c\x02\x37" + struct.pack(">H", 8) + b"20120522" + b"\x1c\x02\x3c" + struct.pack(">H", 11) + b"155227+0100"
    tiff = exif_tiff([(0x010F, ASCII, "Shoebox"), (0x0110, ASCII, "PSD Writer"), (0x0112, SHORT, 6)],
                     [(0x9003, ASCII, "2012:05:22 15:52:27")])
    resources = res(0x0404, iptc) + res(0x0422, tiff) + res(0x0424, xmp({"xmp:CreateDate": "2012-05-22T15:52:27+01:00"}))
    out = b"8BPS" + struct.pack(">H6xHIIHH", 1, 3, 4, 8, 8, 3)
    out += struct.pack(">I", 0) + struct.pack(">I", len(resources)) + resources + struct.pack(">I", 0)
    return out + struct.pack(">H", 0) + bytes(8 * 4 * 3)


def png_bytes(w, h):
    return (b"\x89PNG\r\n\x1a\n" + ihdr(w, h)
            + chunk("IDAT", raw_rgb(w, h, lambda x, y: (x % 256, y % 256, 0))) + chunk("IEND", b""))


def ico_file():
    """ICO with a 16x16 and a 300x200 PNG entry (the directory says 0 = "256 or more" for the latter)."""
    entries = [(16, 16, png_bytes(16, 16)), (0, 0, png_bytes(300, 200))]
    out = struct.pack("<HHH", 0, 1, len(entries))
    off = 6 + 16 * len(entries)
    data = b""
    for w, h, png in entries:
        out += struct.pack("<BBBBHHII", w, h, 0, 0, 1, 32, len(png), off + len(data))
        data += png
    return out + data


def jxl_codestream(w, h):
    """A JPEG XL codestream header only (FF 0A + SizeHeader, not small, U32 selector 0 sizes, ratio 0)."""
    bits = [(0, 1), (0, 2), (h - 1, 9), (0, 3), (0, 2), (w - 1, 9)]
    acc, n = 0, 0
    for v, k in bits:
        acc |= v << n
        n += k
    return b"\xff\x0a" + acc.to_bytes((n + 7) // 8 + 4, "little")


def box(typ, payload):
    return struct.pack(">I", 8 + len(payload)) + typ + payload


def jxl_container(w, h):
    tiff = exif_tiff([(0x010F, ASCII, "Shoebox"), (0x0110, ASCII, "JXL Writer"), (0x0112, SHORT, 8)],
                     [(0x9003, ASCII, "2022:02:03 04:05:06")])
    return (box(b"JXL ", b"\r\n\x87\n") + box(b"ftyp", b"jxl \0\0\0\0jxl ") + box(b"Exif", b"\0\0\0\0" + tiff)
            + box(b"xml ", xmp({"xmp:CreateDate": "2022-02-03T04:05:06+01:00"})) + box(b"jxlc", jxl_codestream(w, h)))


def jpeg_dnl(tmp):
    """An ffmpeg baseline JPEG whose SOF height is set to 0, with a DNL marker (FFDC) after the scan."""
    j = bytearray(ffmpeg_jpeg(os.path.join(tmp, "dnl.jpg"), "48x40"))
    i = 2
    while True:
        marker, length = j[i + 1], struct.unpack(">H", j[i + 2:i + 4])[0]
        if marker == 0xC0:
            struct.pack_into(">H", j, i + 5, 0)
            break
        i += 2 + length
    assert j[-2:] == b"\xff\xd9"
    return bytes(j[:-2]) + b"\xff\xdc\x00\x04" + struct.pack(">H", 40) + b"\xff\xd9"


def jpeg_iptc_bad_xmp(tmp):
    """A JPEG whose XMP photoshop:DateCreated is malformed and whose IPTC (APP13) has the date."""
    base = ffmpeg_jpeg(os.path.join(tmp, "iptc.jpg"), "32x24")
    iptc = b"\x1c\x02\x37" + struct.pack(">H", 8) + b"20090909" + b"\x1c\x02\x3c" + struct.pack(">H", 11) + b"170000+0000"
    app13 = b"Photoshop 3.0\0" + b"8BIM" + struct.pack(">H", 0x0404) + b"\0\0" + struct.pack(">I", len(iptc)) + iptc
    x = b"http://ns.adobe.com/xap/1.0/\0" + xmp({"photoshop:DateCreated": "2009-09-09T17:00:00, 2009-09-09"})
    return jpeg_with_segments(base, [(0xE1, x), (0xED, app13)])


def jpeg_gps_zero_seconds(tmp):
    """EXIF GPS whose seconds are the rational 0/0: read as 0 seconds (52°22' N, 6°40' E)."""
    base = ffmpeg_jpeg(os.path.join(tmp, "gps.jpg"), "32x24")
    gps = [(0x0001, ASCII, "N"), (0x0002, RATIONAL, [(52, 1), (22, 1), (0, 0)]),
           (0x0003, ASCII, "E"), (0x0004, RATIONAL, [(6, 1), (40, 1), (0, 0)])]
    tiff = exif_gps_tiff([(0x010F, ASCII, "Shoebox"), (0x0110, ASCII, "GPS Writer")], [(0x9003, ASCII, DTO)], gps)
    return jpeg_with_segments(base, [(0xE1, b"Exif\0\0" + tiff)])


def exif_gps_tiff(ifd0, exif, gps, bo=">"):
    """A big-endian TIFF block: IFD0 → Exif IFD and GPS IFD."""
    def lay(e_off, g_off):
        return ifd0 + [(0x8769, LONG, e_off), (0x8825, LONG, g_off)]
    a = ifd(bo, lay(0, 0), base=8)
    e_off = 8 + len(a) + len(a) % 2
    b = ifd(bo, exif, base=e_off)
    g_off = e_off + len(b) + len(b) % 2
    out = b"MM" + struct.pack(">HI", 42, 8) + ifd(bo, lay(e_off, g_off), base=8)
    out += b"\0" * (e_off - len(out)) + b
    return out + b"\0" * (g_off - len(out)) + ifd(bo, gps, base=g_off)


def avi_with_idit(tmp):
    """An ffmpeg MJPEG AVI whose JUNK padding inside hdrl becomes an IDIT chunk (asctime text) and whose JUNK
    inside strl becomes a Fujifilm-style strd chunk ("AVIF" + TIFF with Make/Model/DateTimeOriginal); the
    file keeps its size and every offset."""
    path = os.path.join(tmp, "t.avi")
    run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=32x24:rate=10", "-t", "0.5", "-c:v", "mjpeg",
         *BITEXACT, path])
    b = bytearray(open(path, "rb").read())

    def replace_junk(start, end, chunk_id, payload):
        at = start
        while at + 8 <= end:
            cid, size = bytes(b[at:at + 4]), struct.unpack_from("<I", b, at + 4)[0]
            if cid == b"JUNK" and size >= len(payload) + 8 + (len(payload) & 1):
                n = len(payload) + (len(payload) & 1)
                b[at:at + 8 + size] = (chunk_id + struct.pack("<I", len(payload)) + payload + b"\0" * (n - len(payload))
                                       + b"JUNK" + struct.pack("<I", size - n - 8) + bytes(size - n - 8))
                return
            if cid == b"LIST" and bytes(b[at + 8:at + 12]) in (b"hdrl", b"strl") and chunk_id == b"strd":
                replace_junk(at + 12, at + 8 + size, chunk_id, payload)
                if b.find(chunk_id) >= 0:
                    return
            at += 8 + size + (size & 1)

    hdrl_end = 20 + struct.unpack_from("<I", b, 16)[0]
    tiff = exif_tiff([(0x010F, ASCII, "FUJIFILM"), (0x0110, ASCII, "FinePix Z1")], [(0x9003, ASCII, "2006:10:26 16:46:04")],
                     bo="<")
    replace_junk(24, hdrl_end, b"strd", b"AVIF\0\0\0\0" + tiff)
    replace_junk(24, hdrl_end, b"IDIT", b"THU OCT 26 16:46:04 2006\n\0")
    assert b.find(b"IDIT") > 0 and b.find(b"strd") > 0
    return bytes(b)


def ffmpeg_image(path, size, *args):
    run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=size={size}:rate=1", "-frames:v", "1",
         *args, *BITEXACT, path])
    return open(path, "rb").read()


def ffmpeg_audio(path, *args):
    run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=1.5:sample_rate=44100",
         *args, *BITEXACT, "-metadata", "creation_time=2024-05-01T10:34:56Z", path])
    return open(path, "rb").read()


def build(out):
    d = os.path.join(out, "longtail")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    tmp = tempfile.mkdtemp()
    files = []

    def put(name, data, **expect):
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
        files.append({"file": "longtail/" + name, **expect})

    try:
        put("ifd0-at-end.tif", tiff_ifd0_at_end(), kind="tiff", mediaType="image", width=100, height=700,
            dateTimeOriginal="2021-07-22T10:18:45", latitude=-20.440639, longitude=57.318583, make="DJI", model="FC6360",
            xmpCreateDate="2021-07-22T10:18:45+04:00",
            note="IFD0 starts after 70,000 bytes of strip data; ExifImageWidth/Height say 4000x3000 (stale)")
        put("exif-after-1mib.dng", dng_exif_after_data(), kind="dng", mediaType="image", width=1000, height=500,
            dateTimeOriginal="2024-05-06T07:08:09", make="Shoebox", model="Far Exif DNG",
            note="the Exif IFD follows 1 MiB of raw data; size is the SubIFD's DefaultCropSize")
        put("bigtiff.tif", bigtiff(), kind="tiff", mediaType="image", width=32, height=16,
            dateTimeOriginal="2023-01-02T03:04:05", make="Shoebox", model="BigTIFF Writer")
        put("coolpix.tif", plain_tiff("NIKON", "E5700"), kind="tiff", mediaType="image", width=24, height=16, make="NIKON",
            note="a Nikon TIFF without sensor data is a TIFF, not a NEF")
        put("ricoh-fax.tif", plain_tiff("RICOH", "", w=64, h=32, pages=3, bits=1), kind="tiff", mediaType="image",
            width=64, height=32, make="RICOH", note="1-bit, 3 pages; a TIFF, not a PEF")
        put("image.bmp", ffmpeg_image(os.path.join(tmp, "a.bmp"), "20x10", "-c:v", "bmp", "-pix_fmt", "bgr24"),
            kind="bmp", mediaType="image", width=20, height=10)
        put("image.tga", ffmpeg_image(os.path.join(tmp, "a.tga"), "20x10", "-c:v", "targa", "-pix_fmt", "bgr24"),
            kind="tga", mediaType="image", width=20, height=10)
        put("image.ppm", ffmpeg_image(os.path.join(tmp, "a.ppm"), "20x10", "-c:v", "ppm", "-pix_fmt", "rgb24"),
            kind="pnm", mediaType="image", width=20, height=10)
        put("image.pgm", ffmpeg_image(os.path.join(tmp, "a.pgm"), "20x10", "-c:v", "pgm", "-pix_fmt", "gray"),
            kind="pnm", mediaType="image", width=20, height=10)
        put("image.pam", ffmpeg_image(os.path.join(tmp, "a.pam"), "20x10", "-c:v", "pam", "-pix_fmt", "rgb24"),
            kind="pnm", mediaType="image", width=20, height=10)
        put("image.jp2", ffmpeg_image(os.path.join(tmp, "a.jp2"), "40x30", "-c:v", "jpeg2000", "-format", "jp2",
                                      "-pix_fmt", "rgb24", "-f", "image2"),
            kind="jp2", mediaType="image", width=40, height=30)
        put("image.j2k", ffmpeg_image(os.path.join(tmp, "a.j2k"), "40x30", "-c:v", "jpeg2000", "-format", "j2k",
                                      "-pix_fmt", "rgb24", "-f", "image2"),
            kind="j2k", mediaType="image", width=40, height=30)
        put("image.psd", psd_file(), kind="psd", mediaType="image", width=8, height=4, orientation=6,
            dateTimeOriginal="2012-05-22T15:52:27", make="Shoebox", model="PSD Writer",
            note="Exif, XMP and IPTC in the image resources (0x0422, 0x0424, 0x0404)")
        put("icon.ico", ico_file(), kind="ico", mediaType="image", width=300, height=200,
            note="the largest entry is a PNG whose directory size byte says 0 (256 or more)")
        put("codestream.jxl", jxl_codestream(300, 200), kind="jxl", mediaType="image", width=300, height=200,
            note="header only (not decodable)")
        put("container.jxl", jxl_container(300, 200), kind="jxl", mediaType="image", width=300, height=200, orientation=8,
            dateTimeOriginal="2022-02-03T04:05:06", make="Shoebox", model="JXL Writer", note="header only (not decodable)")
        first = ffmpeg_jpeg(os.path.join(tmp, "mpo1.jpg"), "64x48")
        second = ffmpeg_jpeg(os.path.join(tmp, "mpo2.jpg"), "32x32")
        put("stereo.mpo", first + second, kind="jpeg", mediaType="image", width=64, height=48,
            note="two JPEGs back to back: the first is the asset")
        put("dnl.jpg", jpeg_dnl(tmp), kind="jpeg", mediaType="image", width=48, height=40,
            note="SOF height 0; DNL after the scan says 40")
        put("iptc-bad-xmp.jpg", jpeg_iptc_bad_xmp(tmp), kind="jpeg", mediaType="image", width=32, height=24,
            creationDate="2009-09-09T17:00:00+00:00", note="malformed XMP date ignored; IPTC DateCreated+TimeCreated")
        put("gps-zero-seconds.jpg", jpeg_gps_zero_seconds(tmp), kind="jpeg", mediaType="image", width=32, height=24,
            latitude=52.366667, longitude=6.666667, note="GPS seconds are the rational 0/0")
        put("tone.m4a", ffmpeg_audio(os.path.join(tmp, "a.m4a"), "-c:a", "aac", "-f", "ipod"), kind="m4a",
            mediaType="audio", duration=1.5)
        put("tone-only.mp4", ffmpeg_audio(os.path.join(tmp, "a.mp4"), "-c:a", "aac", "-f", "mp4"), kind="mp4",
            mediaType="audio", duration=1.5, note="an MPEG-4 with only an audio track (brand isom)")
        put("tone.mp3", ffmpeg_audio(os.path.join(tmp, "a.mp3"), "-c:a", "libmp3lame", "-b:a", "64k", "-id3v2_version", "0"),
            kind="mp3", mediaType="audio", duration=1.5)
        put("tone.wav", ffmpeg_audio(os.path.join(tmp, "a.wav"), "-c:a", "pcm_s16le", "-ac", "1", "-ar", "8000"),
            kind="wav", mediaType="audio", duration=1.5)
        put("tone.aiff", ffmpeg_audio(os.path.join(tmp, "a.aiff"), "-c:a", "pcm_s16be", "-ac", "1", "-ar", "8000"),
            kind="aiff", mediaType="audio", duration=1.5)
        run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=32x24:rate=10", "-t", "0.5", "-c:v", "mjpeg",
             *BITEXACT, "-metadata", "location=+00.0000+000.0000/", "-metadata", "creation_time=2024-05-01T10:34:56Z",
             os.path.join(tmp, "null.mp4")])
        put("idit.avi", avi_with_idit(tmp), kind="avi", mediaType="video", width=32, height=24,
            dateTimeOriginal="2006-10-26T16:46:04", make="FUJIFILM", model="FinePix Z1",
            note="IDIT (asctime) in hdrl; strd AVIF Exif in strl")
        put("null-island.mp4", open(os.path.join(tmp, "null.mp4"), "rb").read(), kind="mp4", mediaType="video",
            width=32, height=24, latitude=None, note="©xyz +00.0000+000.0000/: no fix, no location")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    with open(os.path.join(out, "longtail-expected.json"), "w") as f:
        json.dump({"generator": "Fixtures/longtail.py", "files": files}, f, indent=2, ensure_ascii=False)
        f.write("\n")
    print(f"wrote {len(files)} files to {d} + longtail-expected.json")


if __name__ == "__main__":
    out = os.path.join(HERE, "generated")
    if len(sys.argv) == 3 and sys.argv[1] == "--out":
        out = sys.argv[2]
    build(out)
