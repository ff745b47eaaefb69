#!/usr/bin/env python3
"""Reads an HLS master playlist and the media playlists it names with the PyPI `m3u8` package
(an independent parser) and prints one JSON object: every variant's attributes, every
EXT-X-MEDIA rendition's attributes, and per media playlist its init map and segments (URI and
EXTINF duration). The end-to-end ladder suite compares our packager's output and Shaka
Packager's with it (docs/architecture.md, "Independent checks").

usage: hls_summary.py MASTER.m3u8
"""
import json
import os
import sys

import m3u8


def media_summary(directory, uri):
    playlist = m3u8.load(os.path.join(directory, uri))
    segments = [{"uri": s.uri, "duration": s.duration,
                 "byterange": s.byterange} for s in playlist.segments]
    maps = sorted({s.init_section.uri for s in playlist.segments if s.init_section is not None})
    return {"maps": maps, "segments": segments, "target": playlist.target_duration,
            "endlist": playlist.is_endlist}


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 64
    path = sys.argv[1]
    directory = os.path.dirname(os.path.abspath(path))
    master = m3u8.load(path)
    if not master.is_variant:
        print(f"{path} is not a master playlist", file=sys.stderr)
        return 1
    variants = []
    for p in master.playlists:
        info = p.stream_info
        variants.append({"uri": p.uri, "bandwidth": info.bandwidth, "averageBandwidth": info.average_bandwidth,
                         "codecs": info.codecs, "resolution": list(info.resolution) if info.resolution else None,
                         "frameRate": info.frame_rate, "audio": info.audio, "subtitles": info.subtitles})
    renditions = []
    for m in master.media:
        renditions.append({"type": m.type, "groupId": m.group_id, "language": m.language, "name": m.name,
                           "default": m.default, "autoselect": m.autoselect, "channels": m.channels, "uri": m.uri})
    media = {}
    for uri in [v["uri"] for v in variants] + [r["uri"] for r in renditions if r["uri"]]:
        media[uri] = media_summary(directory, uri)
    print(json.dumps({"variants": variants, "renditions": renditions, "media": media}, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
