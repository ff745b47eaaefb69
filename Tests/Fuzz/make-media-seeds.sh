#!/usr/bin/env bash
# The seeds of the `hevc`, `hevc-slice` and `webvtt` fuzz targets (docs/fuzzing.md), from
# independent tools: ffmpeg's libx265 (an `hvc1` file, whose hvcC record is paired with each of
# its first samples, an `hev1` stream repeating its parameter sets in band, and for `hevc-slice`
# an `hvc1` stream with weighted prediction, whose P and B slice headers carry the most fields)
# and hand-written WebVTT files in
# the forms the W3C syntax allows. make-seeds.sh runs it; it also runs alone:
#   Tests/Fuzz/make-media-seeds.sh WORKDIR Tests/Fuzz/corpus
set -euo pipefail
WORK=$1 C=$2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PY="$ROOT/.venv/bin/python"
mkdir -p "$C/hevc" "$C/hevc-slice" "$C/webvtt"
for config in "hvc1:hvc1:keyint=5:bframes=2" "hev1:hev1:keyint=5:bframes=0:repeat-headers=1" \
              "weighted:hvc1:keyint=8:bframes=3:weightp=1:weightb=1:ref=3"; do
    name=${config%%:*}; rest=${config#*:}; tag=${rest%%:*}; params=${rest#*:}
    ffmpeg -nostdin -loglevel error -y -f lavfi -i testsrc2=size=64x48:rate=10 -t 1 -c:v libx265 -preset ultrafast \
        -pix_fmt yuv420p -x265-params "$params:log-level=error" -tag:v "$tag" "$WORK/$name.mp4"
    ffmpeg -nostdin -loglevel error -y -i "$WORK/$name.mp4" -c:v copy -bsf:v hevc_mp4toannexb -f hevc "$WORK/$name.hevc"
done
"$PY" - "$WORK" "$C" <<'PY'
import os, struct, sys
work, corpus = sys.argv[1], sys.argv[2]

def put(target, name, data):
    with open(os.path.join(corpus, target, name), "wb") as f:
        f.write(data)

def join(first, last):
    return struct.pack(">I", len(first)) + first + last

for name in ("hvc1", "hev1", "weighted"):
    mp4 = open(os.path.join(work, name + ".mp4"), "rb").read()
    at = mp4.find(b"hvcC") - 4
    record = mp4[at + 8:at + struct.unpack(">I", mp4[at:at + 4])[0]]
    data = open(os.path.join(work, name + ".hevc"), "rb").read()
    starts, i = [], 0
    while (j := data.find(b"\x00\x00\x01", i)) >= 0:
        starts.append(j + 3); i = j + 3
    nals = [data[s:(starts[k + 1] - 3 if k + 1 < len(starts) else len(data))].rstrip(b"\x00") for k, s in enumerate(starts)]
    samples, pending = [], []
    for nal in filter(None, nals):
        pending.append(nal)
        if (nal[0] >> 1) & 0x3F < 32:  # a picture ends the sample (one slice per picture)
            samples.append(b"".join(struct.pack(">I", len(n)) + n for n in pending))
            pending = []
    if name != "weighted":
        for idx, sample in enumerate(samples[:3]):
            put("hevc", f"{name}-{idx}.bin", join(record, sample))
    # I, P and B pictures: the first five in decode order.
    for idx, sample in enumerate(samples[:5]):
        put("hevc-slice", f"{name}-{idx}.bin", join(record, sample))

put("webvtt", "full.vtt", """WEBVTT - a talk
Kind: captions
X-TIMESTAMP-MAP=MPEGTS:900000,LOCAL:00:00:00.000

STYLE
::cue { color: yellow }

REGION
id:left width:40%

NOTE written by hand

intro
00:00.500 --> 00:02.000 align:start line:0 region:left
Hello,
<b>world</b>.

00:01:59.999 --> 01:00:00.000
<v Ann>Later</v>
""".encode())
put("webvtt", "crlf-bom.vtt", "\ufeffWEBVTT\r\n\r\n00:00.000 --> 00:01.000\r\nA\rB\r\n\r\n00:01.000 --> 00:02.000\r\nC\r\n".encode())
put("webvtt", "spanning.vtt", ("WEBVTT\n\n" + "".join(
    f"00:00:{s:02d}.{m:03d} --> 00:00:{e:02d}.000\ncue {n}\n\n" for n, (s, m, e) in
    enumerate([(0, 0, 3), (1, 500, 2), (2, 0, 5), (2, 0, 5), (3, 999, 9), (5, 0, 6)]))).encode())
put("webvtt", "unicode-hours.vtt", "WEBVTT\n\n123:00:00.000 --> 123:00:01.000 vertical:rl\n字幕 — ✓\n".encode())
PY
