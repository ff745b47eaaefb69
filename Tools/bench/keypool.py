"""Builds the key-request pools `loadgen` replays against `kas serve` (Tools/bench.sh, step 3).

Usage:
  keypool.py PORT PACKAGE_DIR TOKENS_FILE OUT_PREFIX --warm N --cold N --sessions-per-viewer S
             --expect-video KID:KEY

Requests are made as a real open-path player makes them: each viewer (one bearer token per line of
TOKENS_FILE) starts live `tdf` sessions on the package's asset (one per component, as the client
does); every request names one of those sessions, carries the package's real manifest and a fresh
P-256 client public key (pregenerated here so the load generator spends no time on crypto).
The warm pool repeats the manifest byte for byte (the KAS content-key cache hits after the first);
in the cold pool each manifest differs only by trailing JSON whitespace, so every request misses
the cache (digest of the bytes) and the KAS unwraps the keys again, as for a new asset.

Before writing the pools, one warm and one cold request are sent with urllib and their answers
unwrapped here with the client's private key (ECDH P-256, HKDF-SHA256 salt SHA-256("TDF"),
AES-256-GCM): the video key must equal --expect-video, or this fails.
Writes OUT_PREFIX-warm.bin and OUT_PREFIX-cold.bin (4-byte big-endian length + raw HTTP/1.1
request, repeated) and prints a JSON summary.
"""
import argparse
import base64
import hashlib
import json
import struct
import sys
import time
import urllib.error
import urllib.request

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF


def post(port: int, path: str, token: str, body: dict) -> tuple[int, dict]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(), method="POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, {"error": error.read().decode(errors="replace")}


def unwrap(answer: dict, client: ec.EllipticCurvePrivateKey) -> bytes:
    server = serialization.load_pem_public_key(answer["sessionPublicKey"].encode())
    shared = client.exchange(ec.ECDH(), server)
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=hashlib.sha256(b"TDF").digest(), info=b"").derive(shared)
    sealed = base64.b64decode(answer["wrappedKey"])
    return AESGCM(key).decrypt(sealed[:12], sealed[12:], None)


def raw_request(port: int, token: str, body: bytes) -> bytes:
    head = (f"POST /media/v1/key-request HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n")
    return head.encode() + body


def cold_variant(manifest: bytes, index: int) -> bytes:
    # 20 trailing whitespace characters spell the index in base 4: distinct bytes, same JSON.
    digits = []
    for _ in range(20):
        digits.append(b" \t\n\r"[index % 4])
        index //= 4
    return manifest + bytes(digits)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("package_dir")
    parser.add_argument("tokens_file")
    parser.add_argument("out_prefix")
    parser.add_argument("--warm", type=int, required=True)
    parser.add_argument("--cold", type=int, required=True)
    parser.add_argument("--sessions-per-viewer", type=int, default=8)
    parser.add_argument("--expect-video", required=True)
    args = parser.parse_args()

    manifest = open(f"{args.package_dir}/manifest.json", "rb").read()
    policy = json.loads(base64.b64decode(json.loads(manifest)["encryptionInformation"]["policy"]))
    asset = policy["uuid"]
    components = [c["id"] for c in policy["arkavo:components"]]
    tokens = [line.strip() for line in open(args.tokens_file) if line.strip()]
    expected_video = bytes.fromhex(args.expect_video.split(":")[1])

    began = time.monotonic()
    # (token, session id, component): a playback per viewer slot, one session per component.
    sessions = []
    for token in tokens:
        for slot in range(args.sessions_per_viewer):
            playback = f"bench-{slot}"
            for component in components:
                status, answer = post(args.port, "/media/v1/session/start", token,
                                      {"assetId": asset, "protocol": "tdf", "playbackId": playback})
                if status != 200 or answer.get("status") != "started":
                    sys.exit(f"keypool: session start answered {status} {answer}")
                sessions.append((token, answer["sessionId"], component))
    session_seconds = time.monotonic() - began

    def body(index: int, manifest_bytes: bytes, client: ec.EllipticCurvePrivateKey) -> tuple[str, bytes, str]:
        token, session, component = sessions[index % len(sessions)]
        pem = client.public_key().public_bytes(serialization.Encoding.PEM,
                                               serialization.PublicFormat.SubjectPublicKeyInfo).decode()
        return token, json.dumps({
            "assetId": asset, "component": component, "sessionId": session,
            "tdfManifest": base64.b64encode(manifest_bytes).decode(), "clientPublicKey": pem,
        }, separators=(",", ":")).encode(), component

    # The check: a video session's answer unwraps, with the client key, to the package's video key.
    video_index = next(i for i, s in enumerate(sessions) if s[2] == "video")
    for label, manifest_bytes in (("warm", manifest), ("cold", cold_variant(manifest, 4 ** 20 - 1))):
        client = ec.generate_private_key(ec.SECP256R1())
        token, payload, _ = body(video_index, manifest_bytes, client)
        request = urllib.request.Request(f"http://127.0.0.1:{args.port}/media/v1/key-request", data=payload,
                                         method="POST", headers={"Authorization": f"Bearer {token}",
                                                                 "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                answer = json.loads(response.read())
        except urllib.error.HTTPError as error:
            sys.exit(f"keypool: {label} check request answered {error.code} {error.read()!r}")
        if unwrap(answer, client) != expected_video:
            sys.exit(f"keypool: the {label} check request did not deliver the package's video key")

    began = time.monotonic()
    counts = {}
    for label, count in (("warm", args.warm), ("cold", args.cold)):
        with open(f"{args.out_prefix}-{label}.bin", "wb") as out:
            for index in range(count):
                client = ec.generate_private_key(ec.SECP256R1())
                manifest_bytes = manifest if label == "warm" else cold_variant(manifest, index)
                token, payload, _ = body(index, manifest_bytes, client)
                request = raw_request(args.port, token, payload)
                out.write(struct.pack(">I", len(request)) + request)
        counts[label] = count
    print(json.dumps({"asset": asset, "components": components, "viewers": len(tokens), "sessions": len(sessions),
                      "session_start_seconds": round(session_seconds, 3),
                      "pool_build_seconds": round(time.monotonic() - began, 3), "pools": counts,
                      "request_bytes": len(raw_request(args.port, tokens[0], body(0, manifest, ec.generate_private_key(ec.SECP256R1()))[1])),
                      "checked": "warm and cold answers unwrap to the package's video key"}))


if __name__ == "__main__":
    main()
