"""Checks that two ladders (ours and Shaka Packager's) list the same variants (RESOLUTION) with the
same video segment boundaries, read with the PyPI m3u8 package; prints one JSON line.
usage: ladder_check.py OURS_MASTER SHAKA_MASTER"""
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
                    "durations": [round(s.duration, 3) for s in media.segments]})
    return out


ours, shaka = ladder(sys.argv[1]), ladder(sys.argv[2])
same = [o["resolution"] for o in ours] == [s["resolution"] for s in shaka] and \
    all(o["durations"] == s["durations"] for o, s in zip(ours, shaka))
print(json.dumps({"kind": "ladder_check", "same": same, "variants": len(ours),
                  "segments": len(ours[0]["durations"]) if ours else 0,
                  "ours_bandwidth": [o["bandwidth"] for o in ours], "shaka_bandwidth": [s["bandwidth"] for s in shaka]}))
sys.exit(0 if same else 1)
