#!/usr/bin/env python3
"""Fill a Shoebox catalog with N synthetic assets (default 1,000,000) with realistic distributions.

Usage: python3 Benchmarks/make-synthetic-catalog.py CATALOG [N]
The catalog must exist (its schema is created by `shoebox ingest` on an empty folder). Deterministic.
Distributions: 88% images / 12% videos; of images 22% Live Photos, 4% HDR, 1% panoramas, 6% screenshots,
5% portraits, 3% in bursts of ~8; of videos 5% slo-mo, 2% time-lapse; 4% favorites, 1% hidden;
capture dates over 2010–2026 with bursts of activity; 60% with GPS; 30 camera models.
"""
import random, sqlite3, sys, uuid

path = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
rng = random.Random(42)
db = sqlite3.connect(path)
db.execute("PRAGMA journal_mode=WAL")
db.execute("PRAGMA synchronous=OFF")
cameras = [("Apple", f"iPhone {v}") for v in ["6", "6s", "7", "8", "X", "XS", "11", "12", "13", "14", "15 Pro"]] + \
          [("samsung", f"SM-G9{v}0") for v in range(10)] + [("Google", f"Pixel {v}") for v in range(2, 11)]
rows, res = [], []


def insert_asset(n):
    """INSERT naming the first n columns of `asset` (columns later migrations add keep their defaults)."""
    names = [r[1] for r in db.execute("PRAGMA table_info(asset)")][:n]
    return "INSERT INTO asset(" + ",".join(names) + ") VALUES (" + ",".join("?" * n) + ")"


t = 1262304000  # 2010-01-01
burst_left, burst_id = 0, None
for i in range(n):
    t += int(rng.expovariate(1 / 500)) if rng.random() < 0.97 else int(rng.expovariate(1 / 400000))
    if t > 1790000000: t = 1262304000 + rng.randrange(500000000)
    video = rng.random() < 0.12
    sub, traits, style = 0, [], 1
    if burst_left > 0:
        burst_left -= 1; b = burst_id; video = False
    elif not video and rng.random() < 0.03 / 8:
        burst_left, burst_id = 7, str(uuid.UUID(int=rng.getrandbits(128))); b = burst_id
    else:
        b = None
    if video:
        style = 4
        if rng.random() < 0.05: sub |= 1 << 17; traits.append("slomo")
        if rng.random() < 0.02: sub |= 1 << 18
    else:
        if rng.random() < 0.22: sub |= 8; style = 3
        if rng.random() < 0.04: sub |= 2
        if rng.random() < 0.01: sub |= 1
        if rng.random() < 0.06: sub |= 4
        if rng.random() < 0.05: sub |= 16; traits.append("hasDepthData")
        if rng.random() < 0.08: traits.append("selfie")
    if b: traits.append("burst")
    make, model = cameras[rng.randrange(len(cameras))]
    import time as _t
    local = _t.strftime("%Y-%m-%dT%H:%M:%S", _t.gmtime(t))
    lat = lon = None
    if rng.random() < 0.6:
        lat, lon = rng.uniform(-60, 70), rng.uniform(-180, 180)
    name = f"IMG_{i % 10000:04d}.{'MOV' if video else 'HEIC'}"
    d = f"/library/{local[:4]}/{local[5:7]}"
    rows.append((i + 1, f"{uuid.UUID(int=rng.getrandbits(128))}/L0/001".upper(), f"{uuid.UUID(int=rng.getrandbits(128))}:001".upper(),
                 "/library", d, f"{local[:4]}/{local[5:7]}/{name}", name, 2 if video else 1, sub, ",".join(sorted(traits)), style, 0,
                 local, rng.choice([None, -18000, 3600, 7200, 19800]), "synthetic", local + "Z", local + "Z", lat, lon, None, None,
                 1920 if video else 4032, 1080 if video else 3024, rng.uniform(1, 120) if video else 0.0, None, b, 0, 0,
                 1 if rng.random() < 0.1 else 0, 1 if rng.random() < 0.04 else 0, 1 if rng.random() < 0.01 else 0, None, 0,
                 make, model, None, None, None, None, None, "[]", "mediaType: synthetic", ""))
    res.append((i + 1, 0, 2 if video else 1, rows[-1][5], name, None, rng.randrange(10**5, 10**7), None, None, None))
    if len(rows) >= 50000:
        db.executemany(insert_asset(len(rows[0])), rows)
        db.executemany("INSERT INTO resource(asset_id, ord, type, path, original_filename, uti, file_size, content_hash, byte_offset, byte_length) VALUES (?,?,?,?,?,?,?,?,?,?)", res)
        db.commit(); rows, res = [], []
if rows:
    db.executemany(insert_asset(len(rows[0])), rows)
    db.executemany("INSERT INTO resource(asset_id, ord, type, path, original_filename, uti, file_size, content_hash, byte_offset, byte_length) VALUES (?,?,?,?,?,?,?,?,?,?)", res)
    db.commit()
db.execute("ANALYZE")
db.commit()
print(f"{n} synthetic assets in {path}")
