#!/usr/bin/env python3
"""MPEG transport stream fixtures for the MPEG-TS reader (Sources/MediaProbe/Containers/MPEGTSReader.swift).

Usage:  python3 Fixtures/mpegts.py [--out DIR]     (default: Fixtures/generated/mpegts next to this file)

Needs: ffmpeg 5.1 with libx264. The corpus has one real AVCHD file (a Sony A7M3 .mts: 1080i H.264, AC-3,
PGS); these cover what it does not: 192-byte M2TS packets, interlaced and progressive H.264 with and
without B-frames, 29.97 fps, 5.1 AC-3 at 44.1 kHz (the odd-size frame table), Blu-ray LPCM, a PTS that
wraps past 2^33 in the middle of the file, and files our reader hands to libavformat (MPEG-2 video with MP2
audio, AAC audio). The test (MPEGTSReaderTests) compares our reader with libavformat on each file, so no
expected values are written here. ffmpeg runs in bitexact mode: every run writes the same bytes.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "generated", "mpegts")

BITEXACT = ["-fflags", "+bitexact", "-flags:v", "+bitexact", "-flags:a", "+bitexact", "-map_metadata", "-1"]

# name: (video lavfi source, audio lavfi source, seconds, output options)
CASES = {
    # 1080i-style interlaced H.264 (25 frames, 50 fields a second) with AC-3, in 192-byte M2TS packets.
    "i25-ac3.m2ts": ("testsrc2=size=320x240:rate=25", "sine=frequency=440:sample_rate=48000", "1.2",
                     ["-c:v", "libx264", "-preset", "ultrafast", "-crf", "40", "-flags:v", "+ilme+ildct", "-x264-params", "interlaced=1:tff=1",
                      "-pix_fmt", "yuv420p", "-c:a", "ac3", "-b:a", "192k", "-f", "mpegts", "-mpegts_m2ts_mode", "1"]),
    # Progressive 29.97 fps with B-frames (leading pictures after the first I), 5.1 AC-3 at 44.1 kHz.
    "p2997-ac3-51.ts": ("testsrc2=size=352x288:rate=30000/1001", "sine=frequency=440:sample_rate=44100", "1.5",
                        ["-c:v", "libx264", "-preset", "fast", "-crf", "40", "-bf", "2", "-pix_fmt", "yuv420p", "-c:a", "ac3", "-ac", "6",
                         "-b:a", "384k", "-f", "mpegts"]),
    # Progressive 50 fps with Blu-ray LPCM.
    "p50-lpcm.m2ts": ("testsrc2=size=320x180:rate=50", "sine=frequency=440:sample_rate=48000", "0.6",
                      ["-c:v", "libx264", "-preset", "ultrafast", "-crf", "40", "-pix_fmt", "yuv420p", "-c:a", "pcm_bluray", "-f", "mpegts",
                       "-mpegts_m2ts_mode", "1"]),
    # Timestamps that wrap past 2^33 ticks (95443.72 s) half-way through.
    "wrap-ac3.ts": ("testsrc2=size=320x240:rate=24", "sine=frequency=440:sample_rate=48000", "1",
                    ["-c:v", "libx264", "-preset", "ultrafast", "-crf", "40", "-pix_fmt", "yuv420p", "-c:a", "ac3", "-output_ts_offset", "95443.2",
                     "-f", "mpegts"]),
    # Handed to libavformat: MPEG-2 video and MP2 audio; H.264 with AAC.
    "mpeg2-mp2.ts": ("testsrc2=size=320x240:rate=25", "sine=frequency=440:sample_rate=48000", "1",
                     ["-c:v", "mpeg2video", "-q:v", "20", "-c:a", "mp2", "-f", "mpegts"]),
    "h264-aac.ts": ("testsrc2=size=320x240:rate=25", "sine=frequency=440:sample_rate=48000", "1",
                    ["-c:v", "libx264", "-preset", "ultrafast", "-crf", "40", "-pix_fmt", "yuv420p", "-c:a", "aac", "-f", "mpegts"]),
}


def main():
    out = OUT
    if len(sys.argv) == 3 and sys.argv[1] == "--out":
        out = sys.argv[2]
    elif len(sys.argv) != 1:
        sys.exit(__doc__)
    os.makedirs(out, exist_ok=True)
    for name, (video, audio, seconds, options) in sorted(CASES.items()):
        cmd = ["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", video, "-f", "lavfi", "-i", audio, "-t", seconds,
               "-threads", "1"] + BITEXACT + options + [os.path.join(out, name)]
        subprocess.run(cmd, check=True)
        print(f"{name}: {os.path.getsize(os.path.join(out, name))} bytes")


if __name__ == "__main__":
    main()
