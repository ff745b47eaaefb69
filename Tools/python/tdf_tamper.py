#!/usr/bin/env python3
"""Writes a copy of a Standard TDF with one deliberate defect, for the tests that show a reader
(tdf_decrypt.py, the Swift readers) refuses it. Uses only zipfile, json and base64; the copy is
a well-formed ZIP (fresh CRCs), so only the TDF's own checks can catch the defect.

    tdf_tamper.py IN.tdf -o OUT.tdf --policy-binding
    tdf_tamper.py IN.tdf -o OUT.tdf --segment N

--policy-binding: changes one digit of every key access object's policy binding, keeping its
form (base64 of the hex HMAC, or of the raw MAC), so the binding no longer matches the policy.
--segment N: flips one ciphertext byte of segment N (between its nonce and its tag), so the
segment fails its hash (HS256) or its AES-GCM authentication (GMAC, whose hash is the tag).

Exit 0 when the copy is written; 1 with `tdf_tamper: error: <reason>` otherwise.
"""

import argparse
import base64
import json
import sys
import zipfile

MANIFEST_NAME = "0.manifest.json"
NONCE_LENGTH = 12
TAG_LENGTH = 16


def fail(message):
    sys.stderr.write(f"tdf_tamper: error: {message}\n")
    sys.exit(1)


def flipped_binding(text):
    raw = base64.b64decode(text)
    try:
        digits = raw.decode("ascii")
        if all(c in "0123456789abcdef" for c in digits):
            changed = digits[:-1] + ("1" if digits[-1] == "0" else "0")
            return base64.b64encode(changed.encode("ascii")).decode("ascii")
    except UnicodeDecodeError:
        pass
    return base64.b64encode(raw[:-1] + bytes([raw[-1] ^ 0x01])).decode("ascii")


def tamper_binding(manifest):
    objects = manifest.get("encryptionInformation", {}).get("keyAccess", [])
    if not objects:
        fail("the manifest has no key access objects")
    for kao in objects:
        binding = kao.get("policyBinding")
        if isinstance(binding, dict) and isinstance(binding.get("hash"), str):
            binding["hash"] = flipped_binding(binding["hash"])
        elif isinstance(binding, str):
            kao["policyBinding"] = flipped_binding(binding)
        else:
            fail("a key access object has no policy binding")


def tamper_segment(manifest, payload, index):
    integrity = manifest.get("encryptionInformation", {}).get("integrityInformation", {})
    segments = integrity.get("segments", [])
    if not 0 <= index < len(segments):
        fail(f"segment {index} does not exist (the payload has {len(segments)})")
    default = integrity.get("encryptedSegmentSizeDefault")
    offset = 0
    for segment in segments[:index]:
        offset += segment.get("encryptedSegmentSize", default)
    size = segments[index].get("encryptedSegmentSize", default)
    if size <= NONCE_LENGTH + TAG_LENGTH:
        fail(f"segment {index} has no ciphertext to change")
    position = offset + NONCE_LENGTH + (size - NONCE_LENGTH - TAG_LENGTH) // 2
    changed = bytearray(payload)
    changed[position] ^= 0x01
    return bytes(changed)


def main(argv):
    parser = argparse.ArgumentParser(prog="tdf_tamper", description="Write a TDF copy with one defect.")
    parser.add_argument("archive")
    parser.add_argument("-o", "--output", required=True)
    defect = parser.add_mutually_exclusive_group(required=True)
    defect.add_argument("--policy-binding", action="store_true", help="break every key access object's policy binding")
    defect.add_argument("--segment", type=int, metavar="N", help="flip a ciphertext byte of segment N (from 0)")
    args = parser.parse_args(argv)

    try:
        with zipfile.ZipFile(args.archive) as source:
            entries = [(info, source.read(info.filename)) for info in source.infolist()]
    except (OSError, zipfile.BadZipFile) as error:
        fail(f"cannot read '{args.archive}': {error}")
    contents = {info.filename: data for info, data in entries}
    if MANIFEST_NAME not in contents:
        fail(f"the archive has no '{MANIFEST_NAME}'")
    manifest = json.loads(contents[MANIFEST_NAME])
    payload_name = manifest.get("payload", {}).get("url", "0.payload")
    if args.policy_binding:
        tamper_binding(manifest)
        contents[MANIFEST_NAME] = json.dumps(manifest).encode("utf-8")
    else:
        if payload_name not in contents:
            fail(f"the archive has no payload entry '{payload_name}'")
        contents[payload_name] = tamper_segment(manifest, contents[payload_name], args.segment)

    with zipfile.ZipFile(args.output, "w") as target:
        for info, _ in entries:
            target.writestr(info, contents[info.filename])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
