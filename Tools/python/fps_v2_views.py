#!/usr/bin/env python3
"""Independent reading of an fps-v2 file's views as the KAS serves them for one playback
(docs/formats.md "Views of fps-v2") for the tests. The ZIP directory is read with Python's
`zipfile` (entry names, header offsets) and each entry's data offset computed here from its local
header (30 bytes, then the name and extra field); the HLS playlists are loaded by PyPI `m3u8`, the
MPD by PyPI `mpegdash` (the ClearKey licence URLs with ElementTree). Every range each view names
must be exactly one entry's stored data: per component its init, then its segments in order, and
the views' ranges with the package's metadata entries tile every entry. The bytes each view
addresses are fetched through its own URIs (HTTP Range) and written as one file per view and
component, init then segments.

usage: fps_v2_views.py MPD_URL MASTER_URL PACKAGE OUT_DIR
  -> JSON: {"components": {"video": {"hls": path, "dash": path, "segments": N}, ...},
            "packageUrls": [...], "licenseUrls": [...]}
Exits 1 with the reason on stderr when a view does not parse or does not tile the archive.
"""
import json
import os
import struct
import sys
import urllib.request
import xml.etree.ElementTree as ET
import zipfile

import m3u8
from mpegdash.parser import MPEGDASHParser

LAURL_NAMESPACES = ("https://dashif.org/CPS", "http://dashif.org/guidelines/clearKey")


def fetch(url, byte_range=None):
    request = urllib.request.Request(url)
    if byte_range is not None:
        offset, length = byte_range
        request.add_header("Range", "bytes=%d-%d" % (offset, offset + length - 1))
    with urllib.request.urlopen(request, timeout=30) as answer:
        expected = 200 if byte_range is None else 206
        if answer.status != expected:
            raise ValueError("%s answered %d" % (url.split("?")[0], answer.status))
        body = answer.read()
    if byte_range is not None and len(body) != byte_range[1]:
        raise ValueError("a range of %d bytes came back with %d" % (byte_range[1], len(body)))
    return body


def zip_data_ranges(path):
    """name -> (data offset, size), from the local headers, for stored entries only."""
    ranges = {}
    with zipfile.ZipFile(path) as archive, open(path, "rb") as raw:
        for info in archive.infolist():
            if info.compress_type != zipfile.ZIP_STORED or info.compress_size != info.file_size:
                raise ValueError("%s is not stored" % info.filename)
            raw.seek(info.header_offset)
            header = raw.read(30)
            if header[:4] != b"PK\x03\x04":
                raise ValueError("%s: no local header at its offset" % info.filename)
            name_length, extra_length = struct.unpack("<HH", header[26:30])
            ranges[info.filename] = (info.header_offset + 30 + name_length + extra_length, info.compress_size)
    return ranges


def hls_byte_range(text):
    length, _, offset = text.partition("@")
    if not offset:
        raise ValueError("a byte range without its offset: %r" % text)
    return int(offset), int(length)


def hls_views(master_url):
    """component -> [(uri, (offset, length))], the init first."""
    master = m3u8.loads(fetch(master_url).decode("utf-8"))
    if not master.is_variant:
        raise ValueError("the master is not a master playlist")
    playlists = [p.uri for p in master.playlists] + [m.uri for m in master.media if m.uri]
    views = {}
    for playlist in playlists:
        component = playlist.split("?")[0].rsplit("/", 1)[-1][: -len(".m3u8")]
        media = m3u8.loads(fetch(playlist).decode("utf-8"))
        if media.is_variant or not media.segments or media.segments[0].init_section is None:
            raise ValueError("%s is not a media playlist with a map" % component)
        init = media.segments[0].init_section
        parts = [(init.uri, hls_byte_range(init.byterange))]
        for segment in media.segments:
            parts.append((segment.uri, hls_byte_range(segment.byterange)))
        keys = [key.keyformat for key in media.keys if key is not None]
        if "org.w3.clearkey" not in keys or "com.apple.streamingkeydelivery" not in keys:
            raise ValueError("%s lacks the FairPlay or the ClearKey key: %r" % (component, keys))
        views[component] = parts
    return views


def inclusive(text):
    first, _, last = text.partition("-")
    return int(first), int(last) - int(first) + 1


def dash_views(text):
    mpd = MPEGDASHParser.parse(text)
    views = {}
    for period in mpd.periods:
        for adaptation in period.adaptation_sets:
            for representation in adaptation.representations:
                segment_list = (representation.segment_lists or adaptation.segment_lists)[0]
                init = segment_list.initializations[0]
                parts = [(init.source_url, inclusive(init.range))]
                parts += [(url.media, inclusive(url.media_range)) for url in segment_list.segment_urls]
                if not representation.codecs or not representation.bandwidth:
                    raise ValueError("representation %s has no codecs or bandwidth" % representation.id)
                views[representation.id] = parts
    root = ET.fromstring(text)
    licences = [element.text for namespace in LAURL_NAMESPACES for element in root.iter("{%s}Laurl" % namespace)]
    return views, licences


def main():
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    mpd_url, master_url, package, out = sys.argv[1:]
    try:
        entries = zip_data_ranges(package)
        hls = hls_views(master_url)
        dash, licences = dash_views(fetch(mpd_url).decode("utf-8"))
        if sorted(hls) != sorted(dash):
            raise ValueError("the views name other components: %r, %r" % (sorted(hls), sorted(dash)))
        report = {"components": {}, "licenseUrls": licences, "packageUrls": []}
        covered = set()
        for component in sorted(hls):
            segments = len(hls[component]) - 1
            names = ["%s-init.mp4" % component] + ["%s-segment%d.m4s" % (component, n) for n in range(segments)]
            expected = [entries.get(name) for name in names]
            for view, parts in (("hls", hls[component]), ("dash", dash[component])):
                if [part[1] for part in parts] != expected:
                    raise ValueError("the %s view of %s does not address its entries' data" % (view, component))
                report["packageUrls"] += [uri for uri, _ in parts]
                path = os.path.join(out, "%s-%s.mp4" % (view, component))
                with open(path, "wb") as file:
                    for uri, byte_range in parts:
                        file.write(fetch(uri, byte_range))
                report["components"].setdefault(component, {})[view] = path
            report["components"][component]["segments"] = segments
            covered.update(names)
        rest = set(entries) - covered
        if rest != {"manifest.json", "master.m3u8"} | {"%s.m3u8" % c for c in hls}:
            raise ValueError("the views and the metadata do not tile the archive: %r" % sorted(rest))
        report["packageUrls"] = sorted(set(report["packageUrls"]))
    except Exception as error:  # the reason, for the test's message
        print("%s: %s" % (type(error).__name__, error), file=sys.stderr)
        return 1
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
