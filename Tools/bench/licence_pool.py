"""Builds the ClearKey licence request pool `loadgen` replays against `kas serve` (Tools/bench/licence.sh).

Usage:
  licence_pool.py PORT ASSET_ID TOKENS_FILE OUT_FILE --expect-video KID_HEX:KEY_HEX [--playbacks-per-viewer N]

As standard players' pages do it: each viewer's backend (one bearer token per line of
TOKENS_FILE) starts N playbacks of the cmaf asset (`POST /media/v1/playback`, `drmSystem`
`clearkey`, `manifestTypes` `["dash"]`), and each CDM then posts W3C ClearKey licence requests
(`{"kids": [...], "type": "temporary"}`) to its answer's `licenseUrl`, without a bearer. Many
playbacks, because the KAS serves one playback component's licences one at a time
(docs/delivery.md): one playback's URL alone would measure that queue, not the route. One licence
per playback is asked for here first and its video key checked against --expect-video (the key
unwrapped from the package with the KAS's RSA key by unwrap_keys.py), so the load measures
answers that are right. The pool is one request per playback (a licence URL is valid 300 s,
longer than a load phase; loadgen cycles through them), in loadgen's format: a 4-byte
big-endian length and the raw HTTP/1.1 request, without an `Origin` (the bench's KAS allows no page
origin; a page's origin must be in `cors.allowedOrigins`, or the KAS answers 403 `origin not allowed`). Prints a JSON summary (no key, no URL).
"""
import argparse
import base64
import json
import struct
import sys
import urllib.error
import urllib.parse
import urllib.request


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def call(url: str, body: dict, token: str | None = None) -> tuple[int, dict]:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, {"error": error.read().decode(errors="replace")}


def licence_request(port: int, playback: dict) -> bytes:
    """The raw HTTP request of one licence of the playback's video key (checked first)."""
    licence = urllib.parse.urlsplit(playback["licenseUrl"])
    body = {"kids": [b64url(bytes.fromhex(playback["keyIds"]["video"].replace("-", "")))], "type": "temporary"}
    payload = json.dumps(body, separators=(",", ":")).encode()
    target = licence.path + ("?" + licence.query if licence.query else "")
    return (f"POST {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(payload)}\r\n\r\n").encode() + payload


def main() -> int:
    arguments = argparse.ArgumentParser()
    arguments.add_argument("port", type=int)
    arguments.add_argument("asset")
    arguments.add_argument("tokens")
    arguments.add_argument("out")
    arguments.add_argument("--expect-video", required=True)
    arguments.add_argument("--playbacks-per-viewer", type=int, default=2)
    options = arguments.parse_args()
    base = f"http://127.0.0.1:{options.port}"
    expected_kid, expected_key = (bytes.fromhex(part) for part in options.expect_video.split(":"))
    tokens = [line.strip() for line in open(options.tokens) if line.strip()]
    pool = b""
    playbacks = 0
    for token in tokens:
        for _ in range(options.playbacks_per_viewer):
            status, playback = call(f"{base}/media/v1/playback", {"assetId": options.asset, "drmSystem": "clearkey",
                                                                  "manifestTypes": ["dash"]}, token)
            if status != 200:
                print(f"licence_pool: a playback was refused ({status}): {playback}", file=sys.stderr)
                return 1
            video_kid = bytes.fromhex(playback["keyIds"]["video"].replace("-", ""))
            status, answer = call(playback["licenseUrl"], {"kids": [b64url(video_kid)], "type": "temporary"})
            if status != 200:
                print(f"licence_pool: a first licence was refused ({status}): {answer}", file=sys.stderr)
                return 1
            keys = {unb64url(k["kid"]): unb64url(k["k"]) for k in answer.get("keys", [])}
            if expected_kid != video_kid or keys.get(video_kid) != expected_key:
                print("licence_pool: a licence's video key is not the package's", file=sys.stderr)
                return 1
            request = licence_request(options.port, playback)
            pool += struct.pack(">I", len(request)) + request
            playbacks += 1
    with open(options.out, "wb") as out:
        out.write(pool)
    print(json.dumps({"kind": "licence_pool", "checked": True, "viewers": len(tokens), "playbacks": playbacks,
                      "request_bytes": len(request)}))
    return 0

if __name__ == "__main__":
    sys.exit(main())
