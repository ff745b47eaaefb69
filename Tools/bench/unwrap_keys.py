"""Prints `KID:KEY` (hex) per component of an unpacked fps-v2 package, for `player decrypt`.

Usage: unwrap_keys.py PACKAGE_DIR KAS_PRIVATE_KEY.pem COMPONENT [INIT_SEGMENT]
INIT_SEGMENT defaults to `<id>-init.mp4` (fps-v2); a cmaf package names one of the component's
renditions' `<rendition>/init.mp4` (its `manifest.json` is the fps-v2 model). The component's wrapped key is found by its keyBinding (HMAC-SHA256(key, "arkavo:fps:component:v1:"
+ id)), unwrapped with RSA-OAEP SHA-1 (python `cryptography`, independent of our code), and its KID
read from the tenc box of `<id>-init.mp4`. Benchmark helper only: it prints a content key.
"""
import base64
import hashlib
import hmac
import json
import sys

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding


def tenc_kid(init: bytes) -> bytes:
    at = init.find(b"tenc")
    if at < 4:
        raise SystemExit("unwrap_keys: no tenc box")
    # size(4) 'tenc' version+flags(4) reserved(1) reserved-or-pattern(1) isProtected(1) ivSize(1) KID(16)
    start = at + 4 + 4 + 4
    return init[start:start + 16]


def main() -> None:
    directory, key_path, component = sys.argv[1:4]
    init_path = sys.argv[4] if len(sys.argv) > 4 else f"{directory}/{component}-init.mp4"
    manifest = json.load(open(f"{directory}/manifest.json"))
    info = manifest["encryptionInformation"]
    policy = json.loads(base64.b64decode(info["policy"]))
    binding = next(c["keyBinding"] for c in policy["arkavo:components"] if c["id"] == component)
    private = serialization.load_pem_private_key(open(key_path, "rb").read(), password=None)
    oaep = padding.OAEP(mgf=padding.MGF1(hashes.SHA1()), algorithm=hashes.SHA1(), label=None)
    for access in info["keyAccess"]:
        key = private.decrypt(base64.b64decode(access["wrappedKey"]), oaep)
        mac = hmac.new(key, b"arkavo:fps:component:v1:" + component.encode(), hashlib.sha256).digest()
        if base64.b64encode(mac).decode() == binding:
            kid = tenc_kid(open(init_path, "rb").read())
            print(f"{kid.hex()}:{key.hex()}")
            return
    raise SystemExit(f"unwrap_keys: no key binds to {component}")


if __name__ == "__main__":
    main()
