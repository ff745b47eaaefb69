#!/usr/bin/env python3
"""Makes the fps-v2 reader vectors shared by the Swift reader (Tests-E2E, ReaderVectorTests) and
the web player's reader (Tests-E2E/Browser): a valid package and mutations of it, each with the
verdict both readers must reach (`admitted`, or `refused` with the check identifier: the case
name of MediaDRMFPSv2's AdmissionCheck). See docs/web.md, "Shared reader vectors".

    make_reader_vectors.py VALID.tdf OUTDIR

VALID.tdf is a package made by `packager package` with --kas-url http://127.0.0.1:8443 (the key
service URL both readers are given). Each mutation changes one thing and re-writes the archive
in the fps-v2 exact layout, so it fails only the check it names.
"""
import base64
import json
import os
import struct
import sys
import zlib

KAS_URL = "http://127.0.0.1:8443"


def read_entries(path):
    """(name, data) in archive order, from the central directory of an exact-layout archive."""
    blob = open(path, "rb").read()
    end = blob.rindex(b"PK\x05\x06")
    count, cd_size, cd_offset = struct.unpack_from("<HII", blob, end + 10)
    entries, at = [], cd_offset
    for _ in range(count):
        size, name_length = struct.unpack_from("<I", blob, at + 24)[0], struct.unpack_from("<H", blob, at + 28)[0]
        offset = struct.unpack_from("<I", blob, at + 42)[0]
        name = blob[at + 46: at + 46 + name_length].decode()
        data_offset = offset + 30 + name_length
        entries.append((name, blob[data_offset: data_offset + size]))
        at += 46 + name_length
    return entries


def write_archive(entries, flags=0, gap_after=None, comment=b"", local_crc_of=None):
    """The exact layout (docs/formats.md, ZIP): stored, no extra fields, 1980-01-01."""
    local, central = b"", b""
    for name, data in entries:
        encoded = name.encode()
        crc = zlib.crc32(data) & 0xFFFFFFFF
        local_crc = crc ^ 1 if name == local_crc_of else crc
        offset = len(local)
        local += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, flags, 0, 0, 0x21, local_crc, len(data), len(data), len(encoded), 0) + encoded + data
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0x0314, 20, flags, 0, 0, 0x21, crc, len(data), len(data),
                               len(encoded), 0, 0, 0, 0, 0, offset) + encoded
        if name == gap_after:
            local += b"\0"
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries), len(central), len(local), len(comment)) + comment
    return local + central + end


def edit(entries, name, change):
    return [(n, change(d) if n == name else d) for n, d in entries]


def rename(entries, old, new):
    return [(new if n == old else n, d) for n, d in entries]


def edit_manifest(entries, change):
    return edit(entries, "manifest.json", lambda d: change(d.decode()).encode())


def edit_policy(entries, change):
    def on_manifest(text):
        manifest = json.loads(text)
        info = manifest["encryptionInformation"]
        info["policy"] = base64.b64encode(change(base64.b64decode(info["policy"]).decode()).encode()).decode()
        return json.dumps(manifest, separators=(",", ":"), sort_keys=True)
    return edit_manifest(entries, on_manifest)


def policy_uuid(entries):
    manifest = json.loads(dict(entries)["manifest.json"])
    return json.loads(base64.b64decode(manifest["encryptionInformation"]["policy"]))["uuid"]


def main():
    valid_path, out = sys.argv[1], sys.argv[2]
    entries = read_entries(valid_path)
    uuid = policy_uuid(entries)
    # The constant IV: after the type, version and flags (4), reserved, pattern, isProtected and
    # IV size (4), the KID (16) and the constant IV size (1).
    at = lambda d: d.index(b"tenc") + 4 + 4 + 4 + 16 + 1
    tenc_iv = lambda d: d[:at(d)] + bytes([d[at(d)] ^ 0xFF]) + d[at(d) + 1:]
    vectors = [
        ("valid", write_archive(entries), "admitted", None),
        ("eocd-comment", write_archive(entries, comment=b"hi"), "refused", "exactLayout"),
        ("gap-between-entries", write_archive(entries, gap_after="master.m3u8"), "refused", "exactLayout"),
        ("data-descriptor-flag", write_archive(entries, flags=0x0008), "refused", "storedEntries"),
        ("local-header-disagrees", write_archive(entries, local_crc_of="manifest.json"), "refused", "headersAgree"),
        ("traversal-name", write_archive(rename(entries, "audio-segment1.m4s", "../audio-seg1.m4s")), "refused", "safeNames"),
        ("not-an-fps-v2-name", write_archive(rename(entries, "video-segment1.m4s", "video_segment1.m4s")), "refused", "entryNames"),
        ("unlisted-component", write_archive(rename(entries, "video-segment1.m4s", "videx-segment1.m4s")), "refused", "componentEntries"),
        ("missing-segment", write_archive([e for e in entries if e[0] != "audio-segment0.m4s"]), "refused", "segmentNumbering"),
        ("manifest-duplicate-key", write_archive(edit_manifest(entries, lambda t: '{"payload":{},' + t[1:])), "refused", "manifestJSON"),
        ("manifest-unknown-member", write_archive(edit_manifest(entries, lambda t: '{"extra":1,' + t[1:])), "refused", "manifestSchema"),
        ("policy-uuid-upper-case", write_archive(edit_policy(entries, lambda p: p.replace(uuid, uuid.upper()))), "refused", "policyUUID"),
        ("no-components", write_archive(edit_policy(entries, lambda p: json.dumps({k: v for k, v in json.loads(p).items() if k != "arkavo:components"}))), "refused", "profileVersion"),
        ("no-classification", write_archive(edit_policy(entries, lambda p: json.dumps({k: v for k, v in json.loads(p).items() if k != "arkavo:classification"}))), "refused", "classification"),
        ("foreign-key-service", write_archive(edit_manifest(entries, lambda t: t.replace(KAS_URL, "http://127.0.0.1:9443"))), "refused", "keyAccessURL"),
        ("short-iv", write_archive(edit_manifest(entries, lambda t: json.dumps({**json.loads(t), "encryptionInformation": {**json.loads(t)["encryptionInformation"], "method": {**json.loads(t)["encryptionInformation"]["method"], "iv": base64.b64encode(b"12345678").decode()}}}, separators=(",", ":"), sort_keys=True))), "refused", "methodIV"),
        ("master-unknown-tag", write_archive(edit(entries, "master.m3u8", lambda d: d.replace(b"#EXT-X-INDEPENDENT-SEGMENTS", b"#EXT-X-INDEPENDENT-SEGMENTS\n#EXT-X-START:TIME-OFFSET=0"))), "refused", "masterGrammar"),
        ("wrong-key-uri", write_archive(edit(entries, "video.m3u8", lambda d: d.replace(f"skd://{uuid}/".encode(), b"skd://00000000-0000-4000-8000-000000000000/"))), "refused", "mediaKeyURI"),
        ("master-channels-differ", write_archive(edit(entries, "master.m3u8", lambda d: d.replace(b'CHANNELS="1"', b'CHANNELS="2"'))), "refused", "masterChannels"),
        ("no-avcc", write_archive(edit(entries, "video-init.mp4", lambda d: d.replace(b"avcC", b"avcX"))), "refused", "initCodec"),
        ("tenc-iv-differs", write_archive(edit(entries, "video-init.mp4", tenc_iv)), "refused", "initTrackEncryption"),
    ]
    os.makedirs(out, exist_ok=True)
    listing = []
    for name, blob, verdict, check in vectors:
        with open(os.path.join(out, f"{name}.tdf"), "wb") as f:
            f.write(blob)
        listing.append({"file": f"{name}.tdf", "verdict": verdict, **({"check": check} if check else {})})
    with open(os.path.join(out, "vectors.json"), "w") as f:
        json.dump({"keyServiceURL": KAS_URL, "vectors": listing}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
