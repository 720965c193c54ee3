#!/usr/bin/env python3
"""Deterministic fixtures for places and local time (docs/places.md): tiny JPEGs with GPS and dates
without an offset, written with exiftool, and one Google Takeout pair (a JPEG with no date + its JSON).

Usage:  python3 Fixtures/places.py [--out DIR]     (default: Fixtures/generated/places)

Needs python3, ffmpeg (mjpeg) and exiftool. The expectations are written by hand in
Tests/PipelineTests/PlacesIngestTests.swift, not here.
"""
import json, os, shutil, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "generated", "places")
BITEXACT = ["-fflags", "+bitexact", "-flags", "+bitexact", "-map_metadata", "-1"]

# name, folder, (lat, lon) or None, DateTimeOriginal, OffsetTimeOriginal or None, make, model
PHOTOS = [
    # Either side of the Portugal–Spain border, 17 km apart, at the same wall-clock time.
    ("elvas.jpg", "border", (38.8808, -7.1628), "2023:07:01 12:00:00", None, "Canon", "Canon EOS 5D"),
    ("badajoz.jpg", "border", (38.8786, -6.9703), "2023:07:01 12:00:00", None, "NIKON CORPORATION", "NIKON D90"),
    # No GPS, same camera as elvas.jpg 40 minutes later: borrows Europe/Lisbon (low confidence).
    ("elvas-nogps.jpg", "border", None, "2023:07:01 12:40:00", None, "Canon", "Canon EOS 5D"),
    # No GPS, same camera, 5 hours later: too far in time to borrow anything.
    ("elvas-later.jpg", "border", None, "2023:07:01 17:00:00", None, "Canon", "Canon EOS 5D"),
    # Lisbon on each side of the spring-forward switch (2023-03-26 01:00 UTC: 01:00 → 02:00 local).
    ("dst-before.jpg", "dst", (38.7223, -9.1393), "2023:03:26 00:30:00", None, "FUJIFILM", "X-T3"),
    ("dst-after.jpg", "dst", (38.7223, -9.1393), "2023:03:26 03:30:00", None, "FUJIFILM", "X-T3"),
    # An offset the file states is never replaced, even when the GPS zone disagrees.
    ("stated.jpg", "dst", (38.7223, -9.1393), "2023:03:27 09:00:00", "+05:00", "FUJIFILM", "X-T3"),
    # A trip across the date line: Apia (UTC+13) and Pago Pago (UTC−11), 200 km apart.
    ("apia.jpg", "dateline", (-13.8333, -171.7667), "2023:06:10 10:00:00", None, "OLYMPUS", "E-M10"),
    ("pago-pago.jpg", "dateline", (-14.2781, -170.7025), "2023:06:10 09:00:00", None, "OLYMPUS", "E-M10"),
    # Three days around Lisbon: moments per day, one cluster.
    ("lisbon-1.jpg", "trip", (38.7139, -9.1334), "2023:05:12 10:00:00", None, "SONY", "ILCE-7M3"),
    ("lisbon-2.jpg", "trip", (38.7107, -9.1365), "2023:05:12 11:00:00", None, "SONY", "ILCE-7M3"),
    ("sintra-1.jpg", "trip", (38.7987, -9.3883), "2023:05:13 10:00:00", None, "SONY", "ILCE-7M3"),
    ("sintra-2.jpg", "trip", (38.7920, -9.3900), "2023:05:13 10:30:00", None, "SONY", "ILCE-7M3"),
    ("lisbon-3.jpg", "trip", (38.6916, -9.2160), "2023:05:14 18:00:00", None, "SONY", "ILCE-7M3"),
]
# Takeout: no date in the JPEG; photoTakenTime 1700000000 = 2023-11-14T22:13:20Z, taken in Tokyo.
TAKEOUT = ("tokyo.jpg", "takeout", (35.6895, 139.6917), 1700000000)


def run(cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def jpeg(path):
    run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=0x336699:size=16x16:rate=1", "-frames:v", "1",
         "-c:v", "mjpeg", "-pix_fmt", "yuvj420p", *BITEXACT, "-f", "image2", "-update", "1", path])


def main():
    out = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else OUT
    shutil.rmtree(out, ignore_errors=True)
    for name, folder, gps, dto, offset, make, model in PHOTOS:
        d = os.path.join(out, folder)
        os.makedirs(d, exist_ok=True)
        p = os.path.join(d, name)
        jpeg(p)
        tags = [f"-Make={make}", f"-Model={model}", f"-DateTimeOriginal={dto}", f"-CreateDate={dto}"]
        if offset:
            tags.append(f"-OffsetTimeOriginal={offset}")
        if gps:
            lat, lon = gps
            tags += [f"-GPSLatitude={abs(lat)}", f"-GPSLatitudeRef={'N' if lat >= 0 else 'S'}",
                     f"-GPSLongitude={abs(lon)}", f"-GPSLongitudeRef={'E' if lon >= 0 else 'W'}"]
        run(["exiftool", "-q", "-overwrite_original", *tags, p])
    name, folder, (lat, lon), taken = TAKEOUT
    d = os.path.join(out, folder)
    os.makedirs(d, exist_ok=True)
    jpeg(os.path.join(d, name))
    meta = {"title": name, "photoTakenTime": {"timestamp": str(taken), "formatted": "Nov 14, 2023, 10:13:20 PM UTC"},
            "geoData": {"latitude": lat, "longitude": lon, "altitude": 0.0, "latitudeSpan": 0.0, "longitudeSpan": 0.0}}
    with open(os.path.join(d, name + ".json"), "w") as f:
        json.dump(meta, f, indent=2, sort_keys=True)
        f.write("\n")
    print(f"places fixtures: {len(PHOTOS) + 1} photos -> {out}")


if __name__ == "__main__":
    main()
