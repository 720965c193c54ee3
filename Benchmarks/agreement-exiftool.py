#!/usr/bin/env python3
"""Per-field agreement of `shoebox probe` with exiftool over any folder (issue 15's measure).

    Benchmarks/agreement-exiftool.py DIR [DIR...] [--list] [--json]

For every file under DIR (hidden files, facts/, *.json and *.md skipped) both tools are run once
(`shoebox probe --format ndjson`, `exiftool -json -n -G1 -a -r`). Among the files that both read (exiftool
names a file type, we name a kind), each field is compared where exiftool has a value:

  size      pixel width x height as stored (exiftool Composite:ImageSize, else File:ImageWidth/Height)
  date      capture date, local time to the second (ours: the classifier's order over the probe's dates;
            exiftool: DateTimeOriginal, QuickTime CreationDate / ©day, XMP, IPTC, CreateDate, then
            QuickTime CreateDate in UTC)
  offset    the date's UTC offset, where both give one
  gps       latitude and longitude within 1e-4 degrees (exiftool Composite:GPSLatitude/Longitude)
  make, model   trimmed text (IFD0, QuickTime keys or user data)
  duration  seconds within 1 % or 0.05 s (QuickTime/Composite Duration)

Also listed: files exiftool reads as image/video/audio that we call unknown. --list prints every
disagreement; --json prints the tallies as JSON. Binary: $SHOEBOX, else <repo>/.build/debug/shoebox,
else .build/release/shoebox. Needs python3 and exiftool (Debian: libimage-exiftool-perl).
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def shoebox_binary():
    if os.environ.get("SHOEBOX"):
        return os.environ["SHOEBOX"]
    for c in ("debug", "release"):
        p = os.path.join(REPO, ".build", c, "shoebox")
        if os.access(p, os.X_OK):
            return p
    sys.exit("agreement-exiftool: no shoebox binary (swift build, or set SHOEBOX)")


def media_files(roots):
    out = []
    for root in roots:
        for dp, dns, fns in os.walk(root):
            dns[:] = sorted(d for d in dns if not d.startswith(".") and d != "facts")
            for fn in sorted(fns):
                if fn.startswith(".") or fn.endswith((".json", ".md")) or fn == "files.txt":
                    continue
                out.append(os.path.abspath(os.path.join(dp, fn)))
    return out


def ours(paths):
    res = subprocess.run([shoebox_binary(), "probe", "--format", "ndjson", *paths], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    reports = {}
    for line in res.stdout.decode().splitlines():
        if line.strip():
            r = json.loads(line)
            reports[os.path.abspath(r["path"])] = r
    return reports


def theirs(paths):
    res = subprocess.run(["exiftool", "-json", "-n", "-G1", "-a", "-q", "-q", *paths], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    try:
        return {os.path.abspath(e["SourceFile"]): e for e in json.loads(res.stdout.decode() or "[]")}
    except json.JSONDecodeError:
        return {}


def first(e, *keys):
    for k in keys:
        v = e.get(k)
        if v not in (None, "", "0000:00:00 00:00:00"):
            return v
    return None


def norm_date(v):
    """exiftool date text → (YYYY-MM-DDTHH:MM:SS, offset text or None); None when not a full date."""
    if not isinstance(v, str) or len(v) < 16:
        return None
    s = v.strip().replace("T", " ")
    d, _, rest = s.partition(" ")
    d = d.replace(":", "-")
    if len(d) != 10 or not rest:
        return None
    t = rest[:8] if len(rest) >= 8 and rest[5] == ":" else rest[:5] + ":00"
    tail = rest[8:] if len(rest) >= 8 and rest[5] == ":" else rest[5:]
    while tail[:1] == "." or tail[:1].isdigit():
        tail = tail[1:]
    off = tail if tail[:1] in ("+", "-") and len(tail) >= 5 else ("+00:00" if tail == "Z" else None)
    if d.startswith("0000"):
        return None
    return d + "T" + t, off


def their_date(e):
    keys = ["ExifIFD:DateTimeOriginal", "Keys:CreationDate", "UserData:DateTimeOriginal", "H264:DateTimeOriginal",
            "RIFF:DateTimeOriginal", "XMP-exif:DateTimeOriginal",
            "XMP-photoshop:DateCreated", "XMP-xmp:CreateDate", "Composite:DateTimeCreated", "ExifIFD:CreateDate",
            "QuickTime:CreateDate"]
    for k in keys:
        n = norm_date(e.get(k))
        if n:
            off = n[1]
            if k == "ExifIFD:DateTimeOriginal":
                off = off or e.get("ExifIFD:OffsetTimeOriginal")
            if k == "QuickTime:CreateDate":
                off = "+00:00"
            return n[0], off, k
    return None


def our_date(r):
    d = r.get("dates", {})
    for k in ["original", "quickTimeCreation", "avchd", "userDataCreation", "xmpCreation", "iptcCreation", "digitized",
              "movieHeaderCreation"]:
        v = d.get(k)
        if v and v["value"]["local"] >= "1971":
            off = v["value"].get("offsetSeconds")
            text = None
            if off is not None:
                text = ("-" if off < 0 else "+") + "%02d:%02d" % (abs(off) // 3600, abs(off) % 3600 // 60)
            return v["value"]["local"][:19], text
    return None


def their_size(e):
    s = e.get("Composite:ImageSize")
    if isinstance(s, str) and " " in s:
        w, h = s.split(" ")[:2]
        return int(float(w)), int(float(h))
    w, h = first(e, "File:ImageWidth"), first(e, "File:ImageHeight")
    return (int(w), int(h)) if isinstance(w, (int, float)) and isinstance(h, (int, float)) else None


def text(v):
    return str(v).strip() if v not in (None, "") else None


def compare(paths):
    o, t = ours(paths), theirs(paths)
    fields = ["size", "date", "offset", "gps", "make", "model", "duration"]
    agree = {f: 0 for f in fields}
    total = {f: 0 for f in fields}
    diffs = []
    unknown = []
    both = 0

    def check(path, field, a, b, eq=lambda x, y: x == y):
        if b is None:
            return
        total[field] += 1
        if a is not None and eq(a, b):
            agree[field] += 1
        else:
            diffs.append((field, os.path.relpath(path), a, b))

    for p in paths:
        e, r = t.get(p), o.get(p)
        if not e or "File:FileType" not in e or r is None:
            continue
        mime = str(e.get("File:MIMEType", ""))
        if r["kind"] in ("unknown", "empty"):
            if mime.split("/")[0] in ("image", "video", "audio"):
                unknown.append((os.path.relpath(p), e.get("File:FileType")))
            continue
        both += 1
        w, h = (r.get("pixelWidth") or {}).get("value"), (r.get("pixelHeight") or {}).get("value")
        if mime.startswith(("image", "video")):
            check(p, "size", (w, h) if w else None, their_size(e))
        td, od = their_date(e), our_date(r)
        if td:
            check(p, "date", od[0] if od else None, td[0])
            if td[1] and od and od[1]:
                check(p, "offset", od[1], td[1].replace("Z", "+00:00")[:6])
        lat, lon = e.get("Composite:GPSLatitude"), e.get("Composite:GPSLongitude")
        if isinstance(lat, (int, float)) and isinstance(lon, (int, float)) and (lat, lon) != (0, 0):
            loc = (r.get("location") or {}).get("value")
            check(p, "gps", (loc["latitude"], loc["longitude"]) if loc else None, (lat, lon),
                  lambda a, b: abs(a[0] - b[0]) < 1e-4 and abs(a[1] - b[1]) < 1e-4)
        cam = r.get("camera", {})
        # -n prints AVCHD's MDPM maker as its code.
        make = first(e, "IFD0:Make", "Keys:Make", "UserData:Make", "QuickTime:Make", "H264:Make")
        make = {259: "Panasonic", 264: "Sony", 4113: "Canon", 4356: "JVC"}.get(make, make)
        check(p, "make", text((cam.get("make") or {}).get("value")), text(make))
        check(p, "model", text((cam.get("model") or {}).get("value")),
              text(first(e, "IFD0:Model", "Keys:Model", "UserData:Model", "QuickTime:Model", "H264:Model")))
        dur = first(e, "QuickTime:Duration", "Composite:Duration", "RIFF:Duration")
        if isinstance(dur, (int, float)) and dur > 0:
            qt = (r.get("quickTime") or {}).get("movieDuration")
            ts = (r.get("quickTime") or {}).get("movieTimescale")
            ours_d = qt / ts if qt and ts else (r.get("format") or {}).get("durationSeconds")
            if ours_d is None:
                ours_d = next((s.get("durationSeconds") for s in r.get("streams", []) if s.get("durationSeconds")), None)
            check(p, "duration", ours_d, float(dur), lambda a, b: abs(a - b) <= max(0.05, 0.01 * b))
    return {"files": len(paths), "bothRead": both, "agree": agree, "total": total, "unknownToUs": unknown,
            "disagreements": diffs}


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if not args:
        sys.exit(__doc__)
    res = compare(media_files(args))
    if "--json" in sys.argv:
        print(json.dumps(res, indent=2, default=str))
        return
    print(f"{res['files']} files, {res['bothRead']} read by both")
    for f in res["agree"]:
        n, a = res["total"][f], res["agree"][f]
        print(f"  {f:9s} {a:5d}/{n:<5d} {100 * a / n:6.1f} %" if n else f"  {f:9s}     -")
    print(f"  unknown to us, read by exiftool as media: {len(res['unknownToUs'])}")
    for path, ft in res["unknownToUs"]:
        print(f"    {path} ({ft})")
    if "--list" in sys.argv:
        for field, path, a, b in res["disagreements"]:
            print(f"  {field}: {path}: ours {a!r}, exiftool {b!r}")


if __name__ == "__main__":
    main()
