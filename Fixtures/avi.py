#!/usr/bin/env python3
"""AVI fixtures for the AVI stream reader (Sources/MediaProbe/Containers/AVIStreamReader.swift).

Usage:  python3 Fixtures/avi.py [--out DIR]     (default: Fixtures/generated/avi next to this file)

Needs: ffmpeg 5.1 with libx264 and libmp3lame. The corpus has one real camera AVI (Motion JPEG with 16-bit
PCM, INFO after the index); these cover what it does not: 8-bit PCM, MPEG-4 (Xvid) with VBR MP3 at 29.97 fps,
H.264 without audio (a small file whose index does not cover it: no video bit rate), a file cut short of
its RIFF size (durations scaled by the part present), and one our reader hands to libavformat (MP2 audio,
which libavformat's parser may rename). The test (AVIStreamReaderTests) compares our reader with
libavformat on each file, so no expected values are written here. ffmpeg runs in bitexact mode.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "generated", "avi")

BITEXACT = ["-fflags", "+bitexact", "-flags:v", "+bitexact", "-flags:a", "+bitexact", "-map_metadata", "-1"]

# name: (video lavfi source, audio lavfi source or None, seconds, output options)
CASES = {
    # A compact camera's clip: Motion JPEG at 15 fps, mono 8-bit PCM at 8 kHz.
    "mjpeg-u8.avi": ("testsrc=size=160x120:rate=15", "sine=frequency=440:sample_rate=8000", "1",
                     ["-c:v", "mjpeg", "-q:v", "20", "-c:a", "pcm_u8"]),
    # Motion JPEG with 16-bit PCM, 1.5 s; cut to 60 % below.
    "mjpeg-s16.avi": ("testsrc=size=160x120:rate=15", "sine=frequency=440:sample_rate=22050", "1.5",
                      ["-c:v", "mjpeg", "-q:v", "20", "-c:a", "pcm_s16le", "-ac", "1"]),
    # Xvid-tagged MPEG-4 at 29.97 fps with VBR MP3.
    "xvid-mp3.avi": ("testsrc=size=176x144:rate=30000/1001", "sine=frequency=440:sample_rate=44100", "1",
                     ["-c:v", "mpeg4", "-q:v", "20", "-vtag", "XVID", "-c:a", "libmp3lame", "-b:a", "64k", "-ac", "1"]),
    # H.264 alone, 25 fps.
    "h264.avi": ("testsrc=size=160x120:rate=25", None, "1",
                 ["-c:v", "libx264", "-preset", "ultrafast", "-crf", "40", "-pix_fmt", "yuv420p"]),
    # Handed to libavformat: MP2 audio.
    "mjpeg-mp2.avi": ("testsrc=size=160x120:rate=15", "sine=frequency=440:sample_rate=48000", "1",
                      ["-c:v", "mjpeg", "-q:v", "20", "-c:a", "mp2"]),
}

# name: (source, fraction kept)
CUTS = {"cut-mjpeg-s16.avi": ("mjpeg-s16.avi", 0.6)}


def main():
    out = OUT
    if len(sys.argv) == 3 and sys.argv[1] == "--out":
        out = sys.argv[2]
    elif len(sys.argv) != 1:
        sys.exit(__doc__)
    os.makedirs(out, exist_ok=True)
    for name, (video, audio, seconds, options) in sorted(CASES.items()):
        inputs = ["-f", "lavfi", "-i", video] + (["-f", "lavfi", "-i", audio] if audio else [])
        cmd = ["ffmpeg", "-v", "error", "-y"] + inputs + ["-t", seconds, "-threads", "1"] + BITEXACT + options + [os.path.join(out, name)]
        subprocess.run(cmd, check=True)
        print(f"{name}: {os.path.getsize(os.path.join(out, name))} bytes")
    for name, (source, fraction) in sorted(CUTS.items()):
        with open(os.path.join(out, source), "rb") as f:
            data = f.read()
        with open(os.path.join(out, name), "wb") as f:
            f.write(data[: int(len(data) * fraction)])
        print(f"{name}: {int(len(data) * fraction)} bytes")


if __name__ == "__main__":
    main()
