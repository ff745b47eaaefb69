#!/usr/bin/env python3
"""Independent Standard TDF (OpenTDF 4.3.0) decryptor, for cross-checking the Swift code.

Uses only `cryptography`, zipfile and json: it shares no code with the project, so a TDF that
opens here was written to the format, not to our own reader.

    tdf_decrypt.py IN.tdf --private-key KAS.pem -o OUT [--kid KID] [--report]

--report prints a JSON report on stdout (segments, bytes, schemaVersion, policyBindingForm).

Checks, in order, before any plaintext is written:
  * the archive holds `0.manifest.json` and the payload the manifest names, with no duplicate
    JSON keys anywhere in the manifest;
  * a key access object the private key can open: `wrapped` (RSA-OAEP, SHA-1, MGF1-SHA-1) or
    `ec-wrapped` (ECDH P-256 with the object's ephemeral PEM key, HKDF-SHA256 with
    salt = SHA-256(b"TDF") and empty info, AES-256-GCM nonce || ciphertext || tag);
  * the policy binding: HMAC-SHA256(key, policy base64 text exactly as stored), accepted as
    base64 of the raw MAC or base64 of its lowercase hex;
  * every segment's hash (GMAC: the segment's GCM tag; HS256: HMAC over the encrypted segment)
    and sizes, then the root signature HMAC-SHA256(key, concatenated segment hashes);
  * every segment decrypts (AES-256-GCM, nonce || ciphertext || tag).
Exit 0 on success; exit 1 with `tdf_decrypt: error: <reason>` on any failure.
"""

import argparse
import base64
import binascii
import hashlib
import hmac
import json
import os
import sys
import tempfile
import zipfile

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

MANIFEST_NAME = "0.manifest.json"
NONCE_LENGTH = 12
TAG_LENGTH = 16
MAX_MANIFEST_BYTES = 8 << 20


class TDFError(Exception):
    pass


def fail(message):
    raise TDFError(message)


def no_duplicates(pairs):
    result = {}
    for key, value in pairs:
        if key in result:
            fail(f"manifest: duplicate JSON key '{key}'")
        result[key] = value
    return result


def field(obj, key, kind, where):
    if not isinstance(obj, dict) or key not in obj:
        fail(f"manifest: missing field '{where}.{key}'")
    value = obj[key]
    if kind is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, kind)
    if not ok:
        fail(f"manifest: field '{where}.{key}' has the wrong type")
    return value


def b64(text, where):
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        fail(f"manifest: field '{where}' is not valid base64")


def load_private_key(path):
    try:
        with open(path, "rb") as handle:
            pem = handle.read()
    except OSError as error:
        fail(f"cannot read private key '{path}': {error.strerror}")
    try:
        key = serialization.load_pem_private_key(pem, password=None)
    except (ValueError, TypeError):
        fail(f"private key '{path}' is not an unencrypted PEM private key")
    if isinstance(key, rsa.RSAPrivateKey):
        return key
    if isinstance(key, ec.EllipticCurvePrivateKey) and isinstance(key.curve, ec.SECP256R1):
        return key
    fail(f"private key '{path}' is neither RSA nor P-256")


def unwrap_rsa(private_key, access, where):
    wrapped = b64(field(access, "wrappedKey", str, where), f"{where}.wrappedKey")
    try:
        return private_key.decrypt(
            wrapped,
            padding.OAEP(mgf=padding.MGF1(algorithm=hashes.SHA1()), algorithm=hashes.SHA1(), label=None),
        )
    except ValueError:
        fail(f"{where}: RSA-OAEP unwrap failed (wrong key or corrupt wrappedKey)")


def unwrap_ec(private_key, access, where):
    wrapped = b64(field(access, "wrappedKey", str, where), f"{where}.wrappedKey")
    ephemeral_pem = field(access, "ephemeralPublicKey", str, where)
    try:
        ephemeral = serialization.load_pem_public_key(ephemeral_pem.encode("ascii"))
    except (ValueError, UnicodeEncodeError):
        fail(f"{where}.ephemeralPublicKey is not a PEM public key")
    if not isinstance(ephemeral, ec.EllipticCurvePublicKey) or not isinstance(ephemeral.curve, ec.SECP256R1):
        fail(f"{where}.ephemeralPublicKey is not a P-256 key")
    shared = private_key.exchange(ec.ECDH(), ephemeral)
    wrap_key = HKDF(
        algorithm=hashes.SHA256(), length=32, salt=hashlib.sha256(b"TDF").digest(), info=b""
    ).derive(shared)
    if len(wrapped) < NONCE_LENGTH + TAG_LENGTH:
        fail(f"{where}.wrappedKey is too short for AES-GCM")
    try:
        return AESGCM(wrap_key).decrypt(wrapped[:NONCE_LENGTH], wrapped[NONCE_LENGTH:], None)
    except InvalidTag:
        fail(f"{where}: EC unwrap failed (wrong key or corrupt wrappedKey)")


def verify_policy_binding(key, policy_text, access, where):
    binding = access.get("policyBinding")
    if isinstance(binding, dict):
        alg = field(binding, "alg", str, f"{where}.policyBinding")
        if alg != "HS256":
            fail(f"{where}.policyBinding.alg '{alg}' is not HS256")
        text = field(binding, "hash", str, f"{where}.policyBinding")
    elif isinstance(binding, str):
        text = binding
    else:
        fail(f"manifest: missing field '{where}.policyBinding'")
    given = b64(text, f"{where}.policyBinding.hash")
    mac = hmac.new(key, policy_text.encode("utf-8"), hashlib.sha256).digest()
    raw_ok = hmac.compare_digest(given, mac)
    hex_ok = hmac.compare_digest(given, mac.hex().encode("ascii"))
    if not (raw_ok or hex_ok):
        fail(f"{where}.policyBinding does not match the policy")
    return "raw" if raw_ok else "hex"


def open_key(manifest, private_key, kid):
    info = field(manifest, "encryptionInformation", dict, "manifest")
    accesses = field(info, "keyAccess", list, "encryptionInformation")
    if not accesses:
        fail("manifest: 'encryptionInformation.keyAccess' is empty")
    policy_text = field(info, "policy", str, "encryptionInformation")
    wanted = "wrapped" if isinstance(private_key, rsa.RSAPrivateKey) else "ec-wrapped"
    problems = []
    for index, access in enumerate(accesses):
        where = f"encryptionInformation.keyAccess[{index}]"
        kind = field(access, "type", str, where)
        if kind != wanted:
            problems.append(f"{where}: type '{kind}' does not match the private key")
            continue
        if kid is not None and access.get("kid") != kid:
            problems.append(f"{where}: kid does not match")
            continue
        try:
            key = unwrap_rsa(private_key, access, where) if wanted == "wrapped" else unwrap_ec(private_key, access, where)
        except TDFError as error:
            problems.append(str(error))
            continue
        if len(key) != 32:
            fail(f"{where}: unwrapped key is {len(key)} bytes, expected 32")
        form = verify_policy_binding(key, policy_text, access, where)
        return key, form, policy_text
    fail("no key access object opens with this private key: " + "; ".join(problems))


def read_entry(archive, name):
    try:
        return archive.read(name)
    except (zipfile.BadZipFile, OSError, NotImplementedError, EOFError) as error:
        fail(f"archive: cannot read entry '{name}': {error}")


def decrypt(archive_path, private_key, kid):
    try:
        archive = zipfile.ZipFile(archive_path)
    except (OSError, zipfile.BadZipFile) as error:
        fail(f"cannot open TDF archive '{archive_path}': {error}")
    with archive:
        names = archive.namelist()
        if len(names) != len(set(names)):
            fail("archive: duplicate entry names")
        if MANIFEST_NAME not in names:
            fail(f"archive: no '{MANIFEST_NAME}' entry")
        if archive.getinfo(MANIFEST_NAME).file_size > MAX_MANIFEST_BYTES:
            fail("archive: manifest is too large")
        manifest_bytes = read_entry(archive, MANIFEST_NAME)
        try:
            manifest = json.loads(manifest_bytes.decode("utf-8"), object_pairs_hook=no_duplicates)
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            fail(f"manifest: not valid JSON ({error})")
        if not isinstance(manifest, dict):
            fail("manifest: not a JSON object")

        payload_info = field(manifest, "payload", dict, "manifest")
        payload_name = field(payload_info, "url", str, "payload")
        if payload_name not in names:
            fail(f"archive: payload entry '{payload_name}' named by the manifest is missing")
        payload = read_entry(archive, payload_name)

    info = field(manifest, "encryptionInformation", dict, "manifest")
    method = field(info, "method", dict, "encryptionInformation")
    algorithm = field(method, "algorithm", str, "encryptionInformation.method")
    if algorithm != "AES-256-GCM":
        fail(f"encryptionInformation.method.algorithm '{algorithm}' is not AES-256-GCM")

    key, binding_form, _ = open_key(manifest, private_key, kid)
    legacy = "schemaVersion" not in manifest

    integrity = field(info, "integrityInformation", dict, "encryptionInformation")
    where = "encryptionInformation.integrityInformation"
    segment_alg = field(integrity, "segmentHashAlg", str, where)
    if segment_alg not in ("GMAC", "HS256"):
        fail(f"{where}.segmentHashAlg '{segment_alg}' is not supported")
    root = field(integrity, "rootSignature", dict, where)
    root_alg = field(root, "alg", str, f"{where}.rootSignature")
    if root_alg != "HS256":
        fail(f"{where}.rootSignature.alg '{root_alg}' is not supported")
    root_sig = b64(field(root, "sig", str, f"{where}.rootSignature"), f"{where}.rootSignature.sig")
    segments = field(integrity, "segments", list, where)
    default_plain = integrity.get("segmentSizeDefault")
    default_encrypted = integrity.get("encryptedSegmentSizeDefault")

    aead = AESGCM(key)
    offset = 0
    hashes_joined = b""
    plaintext = []
    for index, segment in enumerate(segments):
        seg_where = f"{where}.segments[{index}]"
        if not isinstance(segment, dict):
            fail(f"manifest: '{seg_where}' is not an object")
        encrypted_size = segment.get("encryptedSegmentSize", default_encrypted)
        plain_size = segment.get("segmentSize", default_plain)
        if not isinstance(encrypted_size, int) or isinstance(encrypted_size, bool) or encrypted_size < NONCE_LENGTH + TAG_LENGTH:
            fail(f"manifest: '{seg_where}.encryptedSegmentSize' is missing or invalid")
        if not isinstance(plain_size, int) or isinstance(plain_size, bool) or plain_size != encrypted_size - NONCE_LENGTH - TAG_LENGTH:
            fail(f"manifest: '{seg_where}.segmentSize' does not match encryptedSegmentSize")
        chunk = payload[offset:offset + encrypted_size]
        if len(chunk) != encrypted_size:
            fail(f"payload: segment {index} runs past the end of the payload")
        offset += encrypted_size

        if segment_alg == "GMAC":
            digest = chunk[-TAG_LENGTH:]
        else:
            digest = hmac.new(key, chunk, hashlib.sha256).digest()
        if legacy:
            digest = digest.hex().encode("ascii")
        given = b64(field(segment, "hash", str, seg_where), f"{seg_where}.hash")
        if not hmac.compare_digest(given, digest):
            fail(f"payload: segment {index} hash does not match the manifest")
        hashes_joined += digest
        try:
            plaintext.append(aead.decrypt(chunk[:NONCE_LENGTH], chunk[NONCE_LENGTH:], None))
        except InvalidTag:
            fail(f"payload: segment {index} failed AES-GCM authentication")
    if offset != len(payload):
        fail(f"payload: {len(payload) - offset} bytes after the last segment")

    expected_root = hmac.new(key, hashes_joined, hashlib.sha256).digest()
    if legacy:
        expected_root = expected_root.hex().encode("ascii")
    if not hmac.compare_digest(root_sig, expected_root):
        fail(f"{where}.rootSignature does not match the segments")
    return b"".join(plaintext), manifest, binding_form


def write_atomically(path, data):
    directory = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=".tdf_decrypt-", dir=directory)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def main(argv):
    parser = argparse.ArgumentParser(prog="tdf_decrypt", description="Independent Standard TDF decryptor.")
    parser.add_argument("archive")
    parser.add_argument("--private-key", required=True, help="KAS private key PEM (RSA or P-256)")
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--kid", help="only use key access objects with this kid")
    parser.add_argument("--report", action="store_true", help="print a JSON report on stdout")
    args = parser.parse_args(argv)
    try:
        private_key = load_private_key(args.private_key)
        data, manifest, form = decrypt(args.archive, private_key, args.kid)
        write_atomically(args.output, data)
    except TDFError as error:
        print(f"tdf_decrypt: error: {error}", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"tdf_decrypt: error: {error}", file=sys.stderr)
        return 1
    if args.report:
        integrity = manifest["encryptionInformation"]["integrityInformation"]
        print(json.dumps({
            "bytes": len(data),
            "segments": len(integrity["segments"]),
            "policyBindingForm": form,
            "schemaVersion": manifest.get("schemaVersion"),
        }, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
