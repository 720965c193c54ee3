#!/usr/bin/env python3
"""Writes the hostile-file set (issue 9) into Fixtures/hostile/: small files that attack the readers.

    python3 Fixtures/hostile.py [OUTDIR]

Each file is a real container of its kind with one deliberate attack (printed as it is written);
Tests/PipelineTests/ReliabilityTests.swift says which error row each must produce. The tests add what cannot be committed: a 2 GB sparse JPEG, a FIFO,
a file that vanishes between crawl and probe, an unreadable directory and a file that stalls.
Deterministic: the same bytes on every run, no external tools needed.
"""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def box(typ, payload=b""):
    return struct.pack(">I", 8 + len(payload)) + typ + payload


def ftyp(major=b"isom", brands=(b"isom", b"mp42")):
    return box(b"ftyp", major + struct.pack(">I", 0) + b"".join(brands))


def tiny_jpeg():
    """A valid 8x8 grey baseline JPEG (built by hand: DQT, SOF0, DHT, SOS with one DC-only block)."""
    soi = b"\xff\xd8"
    dqt = b"\xff\xdb" + struct.pack(">H", 67) + b"\x00" + bytes([1] * 64)
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, 8, 8, 1) + b"\x01\x11\x00"
    # DC table: one code of length 1 for category 0. AC table: one code of length 1 for EOB (0x00).
    dht_dc = b"\x00" + bytes([1] + [0] * 15) + b"\x00"
    dht_ac = b"\x10" + bytes([1] + [0] * 15) + b"\x00"
    dht = b"\xff\xc4" + struct.pack(">H", 2 + len(dht_dc) + len(dht_ac)) + dht_dc + dht_ac
    sos = b"\xff\xda" + struct.pack(">HB", 8, 1) + b"\x01\x00" + b"\x00\x3f\x00"
    scan = b"\x00"  # DC diff 0 (code '0'), EOB (code '0'), padded with zeros
    return soi, dqt + sof + dht + sos + scan + b"\xff\xd9"


def jpeg_with(*segments):
    soi, rest = tiny_jpeg()
    return soi + b"".join(segments) + rest


def app(n, payload):
    return bytes([0xFF, 0xE0 + n]) + struct.pack(">H", len(payload) + 2) + payload


def ifd_entry(tag, typ, count, value):
    return struct.pack(">HHI", tag, typ, count) + value


def exif_ifd_loop():
    """IFD0 -> Exif IFD -> back to IFD0, and IFD0's next-IFD offset points at itself."""
    tiff = b"MM\x00\x2a" + struct.pack(">I", 8)
    # IFD0 at 8: Make (ASCII, inline 4 bytes), ExifIFDPointer -> 8 (itself), next IFD -> 8.
    entries = [
        ifd_entry(0x010F, 2, 4, b"Loo\x00"),
        ifd_entry(0x8769, 4, 1, struct.pack(">I", 8)),
        ifd_entry(0x8825, 4, 1, struct.pack(">I", 8)),
    ]
    ifd0 = struct.pack(">H", len(entries)) + b"".join(entries) + struct.pack(">I", 8)
    return app(1, b"Exif\x00\x00" + tiff + ifd0)


def exif_outside():
    """Entries whose value offsets and counts point far outside the EXIF block."""
    tiff = b"II\x2a\x00" + struct.pack("<I", 8)
    entries = [
        struct.pack("<HHII", 0x010F, 2, 0x7FFFFFFF, 0xFFFFFF00),  # Make: 2 GB of ASCII at 4 GB
        struct.pack("<HHII", 0x0110, 2, 64, 0x00100000),  # Model: 64 bytes at 1 MiB
        struct.pack("<HHII", 0x8769, 4, 1, 0xFFFFFFF0),  # Exif IFD beyond the end
        struct.pack("<HHII", 0x927C, 7, 0x40000000, 0x00000010),  # MakerNote: 1 GiB
    ]
    ifd0 = struct.pack("<H", len(entries)) + b"".join(entries) + struct.pack("<I", 0xFFFFFFFF)
    return app(1, b"Exif\x00\x00" + tiff + ifd0)


def xmp_laughs():
    ents = ['<!ENTITY lol "lol">']
    for i in range(1, 10):
        prev = "&lol;" if i == 1 else f"&lol{i - 1};"
        ents.append(f'<!ENTITY lol{i} "{prev * 10}">')
    doc = (
        '<?xml version="1.0"?>\n<!DOCTYPE x:xmpmeta [\n' + "\n".join(ents) + "\n]>\n"
        '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
        '<rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xmp="http://ns.adobe.com/xap/1.0/">'
        "<dc:title><rdf:Alt><rdf:li>&lol9;</rdf:li></rdf:Alt></dc:title>"
        "<xmp:CreateDate>&lol9;</xmp:CreateDate>"
        "</rdf:Description></rdf:RDF></x:xmpmeta>"
    )
    return doc.encode()


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "hostile")
    os.makedirs(out, exist_ok=True)
    files = {}

    def write(name, data, attack):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
        files[name] = attack

    # ISO-BMFF: a box that declares 2^63 bytes (64-bit largesize) right after ftyp.
    huge = struct.pack(">I", 1) + b"moov" + struct.pack(">Q", 1 << 63) + b"\x00" * 32
    write("box-size-2p63.mp4", ftyp() + huge, "a moov box whose 64-bit size is 2^63")

    # ISO-BMFF: boxes nested a thousand deep inside moov (trak/mdia/minf/stbl… all containers).
    inner = b""
    for i in range(1000):
        inner = box([b"trak", b"mdia", b"minf", b"stbl", b"edts", b"udta", b"meta"][i % 7], inner if i % 7 != 6 else b"\x00" * 4 + inner)
    write("nested-1000.mov", ftyp(b"qt  ", (b"qt  ",)) + box(b"moov", inner), "containers nested 1000 deep")

    write("ifd-loop.jpg", jpeg_with(exif_ifd_loop()), "EXIF IFD0 whose Exif, GPS and next-IFD offsets point at itself")
    write("exif-outside.jpg", jpeg_with(exif_outside()), "EXIF entries with offsets and counts outside the block")

    xmp = b"http://ns.adobe.com/xap/1.0/\x00" + xmp_laughs()
    write("xmp-laughs.jpg", jpeg_with(app(1, xmp)), "XMP with billion-laughs entity definitions")

    for name, attack in sorted(files.items()):
        print(f"{name}: {attack}")


if __name__ == "__main__":
    main()
