"""Builds the ClearKey licence request pool `loadgen` replays against `kas serve` (Tools/bench/licence.sh).

Usage:
  licence_pool.py PORT ASSET_ID TOKEN OUT_FILE --expect-video KID_HEX:KEY_HEX

As a standard player's page does it: the page's backend starts one playback of the cmaf asset
(`POST /media/v1/playback`, `drmSystem` `clearkey`, `manifestTypes` `["dash"]`), and the CDM then
posts W3C ClearKey licence requests (`{"kids": [...], "type": "temporary"}`) to the answer's
`licenseUrl`, without a bearer. One licence is asked for here first and its video key checked
against --expect-video (the key unwrapped from the package with the KAS's RSA key by
unwrap_keys.py), so the load measures answers that are right. The pool is that one request
(the licence URL is valid 300 s, longer than a load phase), in loadgen's format: a 4-byte
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


def main() -> int:
    arguments = argparse.ArgumentParser()
    arguments.add_argument("port", type=int)
    arguments.add_argument("asset")
    arguments.add_argument("token")
    arguments.add_argument("out")
    arguments.add_argument("--expect-video", required=True)
    options = arguments.parse_args()
    base = f"http://127.0.0.1:{options.port}"
    status, playback = call(f"{base}/media/v1/playback", {"assetId": options.asset, "drmSystem": "clearkey",
                                                          "manifestTypes": ["dash"]}, options.token)
    if status != 200:
        print(f"licence_pool: the playback was refused ({status}): {playback}", file=sys.stderr)
        return 1
    licence = urllib.parse.urlsplit(playback["licenseUrl"])
    video_kid = bytes.fromhex(playback["keyIds"]["video"].replace("-", ""))
    kids = [b64url(video_kid)]
    body = {"kids": kids, "type": "temporary"}
    status, answer = call(playback["licenseUrl"], body)
    if status != 200:
        print(f"licence_pool: the first licence was refused ({status}): {answer}", file=sys.stderr)
        return 1
    expected_kid, expected_key = (bytes.fromhex(part) for part in options.expect_video.split(":"))
    keys = {unb64url(k["kid"]): unb64url(k["k"]) for k in answer.get("keys", [])}
    if expected_kid != video_kid or keys.get(video_kid) != expected_key:
        print("licence_pool: the licence's video key is not the package's", file=sys.stderr)
        return 1
    payload = json.dumps(body, separators=(",", ":")).encode()
    target = licence.path + ("?" + licence.query if licence.query else "")
    request = (f"POST {target} HTTP/1.1\r\nHost: 127.0.0.1:{options.port}\r\nContent-Type: application/json\r\n"
               f"Content-Length: {len(payload)}\r\n\r\n").encode() + payload
    with open(options.out, "wb") as out:
        out.write(struct.pack(">I", len(request)) + request)
    print(json.dumps({"kind": "licence_pool", "checked": True, "kids": len(kids), "request_bytes": len(request)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
