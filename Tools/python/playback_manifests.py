#!/usr/bin/env python3
"""Independent reading of a playback's manifests as the KAS serves them (docs/delivery.md,
"Per-playback manifests") for the tests: the MPD fetched and parsed by PyPI `mpegdash` (its
SegmentTemplate/SegmentTimeline expanded into init and segment URLs; the ClearKey licence URLs,
which mpegdash does not model, read with ElementTree), and the HLS master and media playlists
loaded by PyPI `m3u8` (every segment and EXT-X-MAP URI).

usage: playback_manifests.py MPD_URL MASTER_URL
  -> JSON: {"segmentUrls": [...], "licenseUrls": [...], "playlists": N}
Exits 1 with the reason on stderr when a document does not parse or a URI is not absolute.
"""
import json
import sys
import urllib.request
import xml.etree.ElementTree as ET

import m3u8
from mpegdash.parser import MPEGDASHParser

LAURL_NAMESPACES = ("https://dashif.org/CPS", "http://dashif.org/guidelines/clearKey")


def fetch(url):
    with urllib.request.urlopen(url, timeout=30) as answer:
        if answer.status != 200:
            raise ValueError("%s answered %d" % (url.split("?")[0], answer.status))
        return answer.read().decode("utf-8")


def absolute(url):
    if not (url.startswith("http://") or url.startswith("https://")):
        raise ValueError("not an absolute URL: %r" % url[:80])
    return url


def dash_urls(text):
    mpd = MPEGDASHParser.parse(text)
    urls = []
    for period in mpd.periods:
        for adaptation in period.adaptation_sets:
            for representation in adaptation.representations:
                for template in representation.segment_templates or adaptation.segment_templates or []:
                    if template.initialization:
                        urls.append(absolute(template.initialization.replace("$RepresentationID$", representation.id)))
                    number = template.start_number or 1
                    for timeline in template.segment_timelines or []:
                        for s in timeline.Ss:
                            for _ in range((s.r or 0) + 1):
                                urls.append(absolute(template.media.replace("$Number$", str(number))))
                                number += 1
    root = ET.fromstring(text)
    licences = [element.text for namespace in LAURL_NAMESPACES for element in root.iter("{%s}Laurl" % namespace)]
    return urls, [absolute(url) for url in licences]


def hls_urls(master_url):
    master = m3u8.loads(fetch(master_url))
    if not master.is_variant:
        raise ValueError("the master is not a master playlist")
    playlists = [absolute(p.uri) for p in master.playlists] + [absolute(m.uri) for m in master.media if m.uri]
    urls = []
    for playlist in playlists:
        media = m3u8.loads(fetch(playlist))
        if media.is_variant or not media.segments:
            raise ValueError("%s is not a media playlist" % playlist.split("?")[0])
        for segment in media.segments:
            urls.append(absolute(segment.uri))
            if segment.init_section is not None:
                urls.append(absolute(segment.init_section.uri))
    return urls, len(playlists)


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        dash, licences = dash_urls(fetch(sys.argv[1]))
        hls, playlists = hls_urls(sys.argv[2])
    except Exception as error:  # the reason, for the test's message
        print("%s: %s" % (type(error).__name__, error), file=sys.stderr)
        return 1
    print(json.dumps({"segmentUrls": dash + hls, "licenseUrls": licences, "playlists": playlists}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
