"""Checks that two ladders (ours and Shaka Packager's) list the same variants with the same video
segment boundaries, read with the PyPI m3u8 package; prints one JSON line. RESOLUTION heights
must be equal and widths within one pixel: Shaka applies the sample aspect ratio ffmpeg's
`scale=-2:480` writes (1280:1281, so 854 coded columns display as 853), we write the coded size
as ffprobe reports it. CODECS and BANDWIDTH are reported beside it (`codecs_same`, and the
largest BANDWIDTH difference in per cent) for the cmaf ladder, where both encrypt the same way.
usage: ladder_check.py OURS_MASTER SHAKA_MASTER [--name KIND]"""
import argparse
import json
import os
import sys

import m3u8


def ladder(path):
    master = m3u8.load(path)
    out = []
    for p in master.playlists:
        media = m3u8.load(os.path.join(os.path.dirname(path), p.uri))
        out.append({"resolution": list(p.stream_info.resolution), "bandwidth": p.stream_info.bandwidth,
                    "codecs": p.stream_info.codecs or "",
                    "durations": [round(s.duration, 3) for s in media.segments]})
    return sorted(out, key=lambda v: -v["bandwidth"])


arguments = argparse.ArgumentParser()
arguments.add_argument("ours")
arguments.add_argument("shaka")
arguments.add_argument("--name", default="ladder_check")
options = arguments.parse_args()
ours, shaka = ladder(options.ours), ladder(options.shaka)
same = len(ours) == len(shaka) and \
    all(o["resolution"][1] == s["resolution"][1] and abs(o["resolution"][0] - s["resolution"][0]) <= 1 for o, s in zip(ours, shaka)) and \
    all(o["durations"] == s["durations"] for o, s in zip(ours, shaka))
# RFC 6381 codec parameters are hexadecimal: letter case carries no meaning (Shaka writes lower case).
codec_set = lambda text: sorted(c.strip().lower() for c in text.split(",") if c.strip())
print(json.dumps({"kind": options.name, "same": same, "variants": len(ours),
                  "segments": len(ours[0]["durations"]) if ours else 0,
                  "ours_bandwidth": [o["bandwidth"] for o in ours], "shaka_bandwidth": [s["bandwidth"] for s in shaka],
                  "bandwidth_max_diff_pct": max((abs(o["bandwidth"] - s["bandwidth"]) / s["bandwidth"] * 100
                                                 for o, s in zip(ours, shaka)), default=0),
                  "codecs_same": all(codec_set(o["codecs"]) == codec_set(s["codecs"]) for o, s in zip(ours, shaka)),
                  "ours_codecs": [o["codecs"] for o in ours], "shaka_codecs": [s["codecs"] for s in shaka],
                  "ours_resolution": ["x".join(map(str, o["resolution"])) for o in ours],
                  "shaka_resolution": ["x".join(map(str, s["resolution"])) for s in shaka]}))
sys.exit(0 if same else 1)
