#!/usr/bin/env python3
"""Accuracy of Shoebox's zone lookup (nearest gazetteer place's zone, Sources/Places) against the
timezone-boundary-builder polygons (PyPI `timezonefinder`, which ships them), on random land points.

    python3 -m venv /tmp/tzv && /tmp/tzv/bin/pip install timezonefinder==9.0.0
    /tmp/tzv/bin/python Benchmarks/places_accuracy.py .build/gazetteer/gazetteer.bin [N=10000] [seed=19]

A point is "land" when the polygons give it a zone other than the ocean zones (Etc/GMT±n). It is "near a
border" when the polygon zone 0.25° (≈ 28 km) north, south, east or west of it differs. Two zones "agree in
effect" when their UTC offsets are equal on the 1st and 15th of every month of 2024 (aliases such as
Europe/Vatican vs Europe/Rome, or Asia/Kolkata vs Asia/Calcutta, agree in effect).
The nearest place is found as Sources/Places/Gazetteer.swift finds it (haversine, nearest record within
500 km; none: nautical zone), re-implemented here over the same file.
"""
import math, random, struct, sys, time
from datetime import datetime, timezone
from zoneinfo import ZoneInfo
from timezonefinder import TimezoneFinder

path = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
random.seed(int(sys.argv[3]) if len(sys.argv) > 3 else 19)
b = open(path, "rb").read()
count, slen = struct.unpack_from("<II", b, 8)
cells = 180 * 360
index = struct.unpack_from(f"<{cells + 1}I", b, 24)
rec_at = 24 + (cells + 1) * 4
str_at = rec_at + count * 32
recs = [struct.unpack_from("<iiIIIIII", b, rec_at + i * 32) for i in range(count)]


def s(off):
    e = b.index(b"\0", str_at + off)
    return b[str_at + off:e].decode()


def hav(la1, lo1, la2, lo2):
    r = math.pi / 180
    a = math.sin((la2 - la1) * r / 2) ** 2 + math.cos(la1 * r) * math.cos(la2 * r) * math.sin((lo2 - lo1) * r / 2) ** 2
    return 2 * 6371.0088 * math.asin(min(1, math.sqrt(a)))


def near(lat, lon, radius):
    dlat = radius / 111.0
    lat0, lat1 = max(-90, math.floor(lat - dlat)), min(89, math.floor(lat + dlat))
    maxabs = min(89.9, max(abs(lat - dlat), abs(lat + dlat)))
    dlon = radius / (111.0 * math.cos(maxabs * math.pi / 180))
    lons = range(-180, 180) if dlon >= 180 else {((x + 180) % 360) - 180 for x in range(math.floor(lon - dlon), math.floor(lon + dlon) + 1)}
    best = None
    for la in range(lat0, lat1 + 1):
        for lo in lons:
            c = (la + 90) * 360 + lo + 180
            for i in range(index[c], index[c + 1]):
                d = hav(lat, lon, recs[i][0] / 1e5, recs[i][1] / 1e5)
                if d <= radius and (best is None or d < best[1]):
                    best = (i, d)
    return best


def ours(lat, lon):
    r = 25.0
    while True:
        m = near(lat, lon, min(r, 500))
        if m:
            return s(recs[m[0]][7]), m[1]
        if r >= 500:
            return None, None
        r *= 4


instants = [datetime(2024, m, d, 12, tzinfo=timezone.utc) for m in range(1, 13) for d in (1, 15)]
cache = {}


def offsets(z):
    if z not in cache:
        try:
            tz = ZoneInfo(z)
            cache[z] = tuple(t.astimezone(tz).utcoffset() for t in instants)
        except Exception:
            cache[z] = None
    return cache[z]


tf = TimezoneFinder(in_memory=True)
stats = {k: 0 for k in ["land", "same_id", "same_effect", "border", "border_same_effect", "nautical", "south60", "south60_same", "populated", "populated_same", "populated_border", "populated_border_same"]}
dists = []
t0 = time.time()
while stats["land"] < n:
    z = 2 * random.random() - 1
    lat, lon = math.degrees(math.asin(z)), random.uniform(-180, 180)
    truth = tf.timezone_at(lng=lon, lat=lat)
    if not truth or truth.startswith("Etc/"):
        continue
    stats["land"] += 1
    mine, d = ours(lat, lon)
    if mine is None:
        stats["nautical"] += 1
    else:
        dists.append(d)
    border = any(tf.timezone_at(lng=((lon + dx + 180) % 360) - 180, lat=max(-89.99, min(89.99, lat + dy))) != truth
                 for dx, dy in ((0.25, 0), (-0.25, 0), (0, 0.25), (0, -0.25)))
    same = mine == truth
    effect = mine is not None and offsets(mine) is not None and offsets(mine) == offsets(truth)
    stats["same_id"] += same
    stats["same_effect"] += effect
    stats["border"] += border
    stats["south60"] += lat < -60
    pop = d is not None and d <= 25
    stats["populated"] += pop
    stats["populated_same"] += pop and effect
    stats["populated_border"] += pop and border
    stats["populated_border_same"] += pop and border and effect
    stats["south60_same"] += lat < -60 and effect
    stats["border_same_effect"] += border and effect
dists.sort()
L = stats["land"]
print(f"{L} random land points (uniform on the sphere, polygons of timezonefinder; {time.time() - t0:.0f} s)")
print(f"  same zone id as the polygons:        {stats['same_id']} ({100 * stats['same_id'] / L:.1f} %)")
print(f"  same offsets through 2024 (effect):  {stats['same_effect']} ({100 * stats['same_effect'] / L:.1f} %)")
print(f"  differ in effect:                    {L - stats['same_effect']} ({100 * (L - stats['same_effect']) / L:.1f} %)")
B = stats["border"]
print(f"  near a border (zone differs ≤0.25°): {B} points; differ in effect there: {B - stats['border_same_effect']} ({100 * (B - stats['border_same_effect']) / max(B, 1):.1f} %)")
NB = L - B
print(f"  away from borders: {NB} points; differ in effect: {(L - stats['same_effect']) - (B - stats['border_same_effect'])} ({100 * ((L - stats['same_effect']) - (B - stats['border_same_effect'])) / max(NB, 1):.1f} %)")
A = stats["south60"]
print(f"  Antarctica (south of 60°S): {A} points, differ in effect: {A - stats['south60_same']}; without it: "
      f"{(L - stats['same_effect']) - (A - stats['south60_same'])} of {L - A} differ ({100 * ((L - stats['same_effect']) - (A - stats['south60_same'])) / max(L - A, 1):.1f} %)")
P, PB = stats["populated"], stats["populated_border"]
print(f"  within 25 km of a gazetteer place (where photos get a place name): {P} points, differ in effect: "
      f"{P - stats['populated_same']} ({100 * (P - stats['populated_same']) / max(P, 1):.1f} %); near a border: {PB}, differ there: "
      f"{PB - stats['populated_border_same']} ({100 * (PB - stats['populated_border_same']) / max(PB, 1):.1f} %)")
print(f"  no place within 500 km (nautical zone used): {stats['nautical']}")
if dists:
    print(f"  distance to the nearest place: median {dists[len(dists) // 2]:.1f} km, 90th percentile {dists[int(len(dists) * 0.9)]:.1f} km")
