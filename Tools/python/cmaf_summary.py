#!/usr/bin/env python3
"""Independent reading of a cmaf package (docs/formats.md, "cmaf") for the tests: the protection
boxes of each init segment, parsed here from the ISO BMFF bytes, and the DASH MPD as PyPI
`mpegdash` reads it (the ClearKey licence URLs, which mpegdash does not model, with ElementTree).

usage: cmaf_summary.py init FILE...   -> JSON per file: schm, tenc, pssh boxes
       cmaf_summary.py mpd FILE        -> JSON: type, duration, adaptation sets
       cmaf_summary.py senc FILE...    -> JSON per media segment: its first tfdt decode time and
                                          each sample's senc subsamples as [clear, protected]
                                          pairs (ISO/IEC 23001-7 §7.2)
"""
import json
import struct
import sys
import xml.etree.ElementTree as ET

CONTAINERS = {b"moov", b"trak", b"mdia", b"minf", b"stbl", b"sinf", b"schi", b"mvex", b"dinf"}
SAMPLE_ENTRY_HEADER = {b"encv": 78, b"enca": 28}


def boxes(data, start, end):
    """Yields (type, payload start, box end); refuses a box that overruns its parent."""
    offset = start
    while offset < end:
        if end - offset < 8:
            raise ValueError("truncated box header at %d" % offset)
        size, kind = struct.unpack(">I4s", data[offset:offset + 8])
        header = 8
        if size == 1:
            size = struct.unpack(">Q", data[offset + 8:offset + 16])[0]
            header = 16
        if size < header or offset + size > end:
            raise ValueError("box %r at %d overruns its parent" % (kind, offset))
        yield kind, offset + header, offset + size
        offset += size


def walk(data, start, end, found):
    for kind, body, stop in boxes(data, start, end):
        if kind in CONTAINERS:
            walk(data, body, stop, found)
        elif kind == b"stsd":
            walk(data, body + 8, stop, found)
        elif kind in SAMPLE_ENTRY_HEADER:
            found["entry"] = kind.decode()
            walk(data, body + SAMPLE_ENTRY_HEADER[kind], stop, found)
        elif kind == b"frma":
            found["frma"] = data[body:body + 4].decode()
        elif kind == b"schm":
            found["schm"] = data[body + 4:body + 8].decode()
            found["schmVersion"] = struct.unpack(">I", data[body + 8:body + 12])[0]
        elif kind == b"tenc":
            version = data[body]
            pattern = data[body + 5]
            protected, iv_size = data[body + 6], data[body + 7]
            kid = data[body + 8:body + 24].hex()
            tenc = {"version": version, "crypt": pattern >> 4, "skip": pattern & 15, "protected": protected,
                    "perSampleIVSize": iv_size, "kid": kid}
            if protected == 1 and iv_size == 0:
                n = data[body + 24]
                tenc["constantIV"] = data[body + 25:body + 25 + n].hex()
            found["tenc"] = tenc
        elif kind == b"pssh":
            version = data[body]
            system = data[body + 4:body + 20].hex()
            offset = body + 20
            kids = []
            if version > 0:
                count = struct.unpack(">I", data[offset:offset + 4])[0]
                offset += 4
                if offset + 16 * count > stop:
                    raise ValueError("pssh KID_count overruns the box")
                kids = [data[offset + 16 * i:offset + 16 * (i + 1)].hex() for i in range(count)]
                offset += 16 * count
            size = struct.unpack(">I", data[offset:offset + 4])[0]
            if offset + 4 + size != stop:
                raise ValueError("pssh DataSize does not end the box")
            found.setdefault("pssh", []).append({"version": version, "systemID": system, "kids": kids, "dataSize": size})


def init_summary(path):
    data = open(path, "rb").read()
    found = {}
    walk(data, 0, len(data), found)
    return found


def senc_summary(path):
    """The subsample entries of every senc in the segment's moof/traf boxes, in sample order.
    The track's per-sample IV size is 0 (a constant IV, as cbcs here and Shaka Packager write it)."""
    data = open(path, "rb").read()
    samples = []
    decode_time = None
    for kind, body, stop in boxes(data, 0, len(data)):
        if kind != b"moof":
            continue
        for traf_kind, traf_body, traf_stop in boxes(data, body, stop):
            if traf_kind != b"traf":
                continue
            for inner, start, end in boxes(data, traf_body, traf_stop):
                if inner == b"tfdt" and decode_time is None:
                    wide = data[start] == 1
                    decode_time = struct.unpack(">Q" if wide else ">I", data[start + 4:start + (12 if wide else 8)])[0]
                if inner != b"senc":
                    continue
                flags = struct.unpack(">I", data[start:start + 4])[0] & 0xFFFFFF
                count = struct.unpack(">I", data[start + 4:start + 8])[0]
                offset = start + 8
                for _ in range(count):
                    pairs = []
                    if flags & 2:
                        entries = struct.unpack(">H", data[offset:offset + 2])[0]
                        offset += 2
                        for _ in range(entries):
                            clear, protected = struct.unpack(">HI", data[offset:offset + 6])
                            pairs.append([clear, protected])
                            offset += 6
                    if offset > end:
                        raise ValueError("senc overruns its box in %s" % path)
                    samples.append(pairs)
    return {"decodeTime": decode_time, "samples": samples}


def mpd_summary(path):
    from mpegdash.parser import MPEGDASHParser
    mpd = MPEGDASHParser.parse(path)
    tree = ET.parse(path)
    ns = {"mpd": "urn:mpeg:dash:schema:mpd:2011", "dashif": "https://dashif.org/CPS",
          "clearkey": "http://dashif.org/guidelines/clearKey"}
    xml_sets = tree.getroot().findall("mpd:Period/mpd:AdaptationSet", ns)
    sets = []
    for adaptation, element in zip(mpd.periods[0].adaptation_sets, xml_sets):
        protections = []
        for cp in adaptation.content_protections or []:
            protections.append({"scheme": cp.scheme_id_uri, "value": cp.value, "defaultKID": cp.cenc_default_kid,
                                "pssh": [p.pssh for p in (cp.pssh or [])]})
        laurls = [e.text for e in element.findall("mpd:ContentProtection/dashif:Laurl", ns)]
        laurls += [e.text + "|" + e.get("Lic_type", "") for e in element.findall("mpd:ContentProtection/clearkey:Laurl", ns)]
        representations = []
        for r in adaptation.representations:
            template = r.segment_templates[0]
            timeline = []
            for s in template.segment_timelines[0].Ss:
                for _ in range((s.r or 0) + 1):
                    timeline.append(s.d)
            representations.append({"id": r.id, "bandwidth": r.bandwidth, "codecs": r.codecs, "media": template.media,
                                    "initialization": template.initialization, "timescale": template.timescale,
                                    "startNumber": template.start_number, "durations": timeline,
                                    # DASH lets the AdaptationSet carry what all its Representations share.
                                    "width": r.width or adaptation.width, "height": r.height or adaptation.height})
        sets.append({"contentType": adaptation.content_type, "lang": adaptation.lang, "mimeType": adaptation.mime_type,
                     "protections": protections, "laurls": laurls, "representations": representations})
    return {"type": mpd.type, "duration": mpd.media_presentation_duration, "sets": sets}


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "init":
        print(json.dumps({path: init_summary(path) for path in sys.argv[2:]}))
    elif len(sys.argv) >= 3 and sys.argv[1] == "senc":
        print(json.dumps({path: senc_summary(path) for path in sys.argv[2:]}))
    elif len(sys.argv) == 3 and sys.argv[1] == "mpd":
        print(json.dumps(mpd_summary(sys.argv[2])))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
