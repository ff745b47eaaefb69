#!/usr/bin/env python3
"""Independent check of an offline licence (docs/offline.md) with `cryptography`, not our code.

usage: verify_offline_license.py JWKS_FILE LICENSE_FILE DEVICE_PUBLIC_KEY_PEM_FILE

Verifies the compact JWS (ES256, raw r||s signature) with the JWKS key its header's kid names,
checks the header's typ, and computes the RFC 7638 thumbprint of the device key. Prints one JSON
object: {"kid", "typ", "payload", "deviceThumbprint"}; exits 1 with a reason on stderr when the
signature does not verify or the kid is not published.
"""
import base64
import hashlib
import json
import sys

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def main():
    jwks_path, license_path, device_path = sys.argv[1:4]
    with open(jwks_path) as f:
        jwks = json.load(f)
    with open(license_path) as f:
        compact = f.read().strip()
    with open(device_path, "rb") as f:
        device = serialization.load_pem_public_key(f.read())

    header_part, payload_part, signature_part = compact.split(".")
    header = json.loads(b64url_decode(header_part))
    if header.get("alg") != "ES256":
        sys.exit("alg is not ES256")
    keys = [k for k in jwks["keys"] if k.get("kid") == header.get("kid")]
    if not keys:
        sys.exit("the licence's kid is not in the JWKS")
    jwk = keys[0]
    x = int.from_bytes(b64url_decode(jwk["x"]), "big")
    y = int.from_bytes(b64url_decode(jwk["y"]), "big")
    public_key = ec.EllipticCurvePublicNumbers(x, y, ec.SECP256R1()).public_key()
    raw = b64url_decode(signature_part)
    if len(raw) != 64:
        sys.exit("the signature is not 64 bytes")
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    try:
        public_key.verify(der, f"{header_part}.{payload_part}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        sys.exit("the signature does not verify")

    numbers = device.public_numbers()
    members = {"crv": "P-256", "kty": "EC",
               "x": b64url(numbers.x.to_bytes(32, "big")), "y": b64url(numbers.y.to_bytes(32, "big"))}
    canonical = json.dumps(members, separators=(",", ":"), sort_keys=True).encode()
    print(json.dumps({"kid": header["kid"], "typ": header.get("typ"), "payload": json.loads(b64url_decode(payload_part)),
                      "deviceThumbprint": b64url(hashlib.sha256(canonical).digest())}))


if __name__ == "__main__":
    main()
