#!/usr/bin/env python3
"""A stub of the services a Client meets around delivery (standard library only), for the
Client's license-profile, delivery and renewal tests. It shares no code with the Client.

Prints its port on the first stdout line, serves 127.0.0.1 until its stdin closes.

License services, one dialect each (docs/fairplay.md "License-server profiles"). The CKC it
answers is b"ckc:" + SHA-256(SPC), so a test can tell a CKC made from its SPC from any other:
  GET  /media/v1/certificate         ours: the certificate, raw DER
  POST /media/v1/key-request         ours: JSON with spcData -> {"status":"success","wrappedKey":CKC b64}
  GET  /jw/certificate               JW: raw DER
  POST /jw/license                   JW: raw SPC (application/octet-stream) -> raw CKC
  GET  /cvk/certificate/{der,base64,pem}
  POST /cvk/license                  Cloud Video Kit: needs x-drm-brandGuid and x-drm-usertoken;
                                     raw CKC, or {"ckc": b64} when the request accepts JSON
  POST /drmx/playback-session        DRM-X: needs the customer's bearer; answers the session
  GET  /drmx/certificate, POST /drmx/license, DELETE /drmx/release/ID (204)
  ANY  /redirect/...                 302 to /jw/license
A license route answers 415 unless the SPC comes as application/octet-stream.

Playback API and origin (the contract of docs/delivery.md), bearer --token required:
  POST   /media/v1/playback                  {assetId, drmSystem, ...} -> the playback answer
  POST   /media/v1/playback/ID/media-url     a fresh media URL (403 after release)
  DELETE /media/v1/playback/ID               204, the playback released
  POST   /media/v1/session/ID/heartbeat      200 {}
  GET    /v2/media/ASSET                     the JW-shape description, sources shuffled (bearer
                                             or any ?token=)
  GET    /origin/PATH?token=T                a file under --root, single Range requests (206);
                                             403 once T has been used --uses times (its expiry)
--initial-uses N gives the URL of a playback answer N uses instead (0: refused at once).
--asset ID=PATH (repeatable) names the catalogue: PATH relative to --root. --kas is the
licenseUrl a tdf playback names (the stub itself by default). --expires-in is the mediaUrlExpiresAt the answers announce.

  GET /__requests   every request so far except this one: [{method, target, headers, body}],
                    target as sent (path and query), headers [[name, value]], body base64.
"""
import argparse
import base64
import hashlib
import json
import os
import random
import re
import secrets
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CERTIFICATE = bytes(range(0x30, 0x90))
PEM = (b"-----BEGIN CERTIFICATE-----\n" + base64.encodebytes(CERTIFICATE) + b"-----END CERTIFICATE-----\n")


def ckc_for(spc):
    return b"ckc:" + hashlib.sha256(spc).digest()


class State:
    lock = threading.Lock()
    log = []
    tokens = {}        # token -> uses left
    playbacks = {}     # playback id -> {"released": bool, "asset": id}
    released = []      # DRM-X session ids released


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    args = None

    def log_message(self, fmt, *args):
        pass

    def base(self):
        return "http://127.0.0.1:%d" % self.server.server_address[1]

    def reply(self, status, body=b"", content_type="application/octet-stream", headers=()):
        self.send_response(status)
        if status != 204:
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        if status != 204 and self.command != "HEAD":
            self.wfile.write(body)

    def json(self, status, value):
        self.reply(status, json.dumps(value).encode(), "application/json")

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        path, _, query = self.path.partition("?")
        if path == "/__requests":
            with State.lock:
                self.json(200, State.log)
            return
        with State.lock:
            State.log.append({"method": self.command, "target": self.path,
                              "headers": [[k, v] for k, v in self.headers.items()],
                              "body": base64.b64encode(body).decode()})
        try:
            self.route(path, query, body)
        except (ValueError, KeyError, TypeError):
            self.json(400, {"error": "bad request"})

    do_GET = do_POST = do_DELETE = do_HEAD = do_PUT = handle_any

    def octet_spc(self):
        return (self.headers.get("Content-Type") or "") == "application/octet-stream"

    def bearer_ok(self):
        return self.headers.get("Authorization") == "Bearer " + self.args.token

    def route(self, path, query, body):
        method = self.command
        if path.startswith("/redirect/"):
            self.reply(302, b"", headers=[("Location", "/jw/license")])
        elif path in ("/media/v1/certificate", "/jw/certificate", "/drmx/certificate", "/cvk/certificate/der") and method == "GET":
            self.reply(200, CERTIFICATE)
        elif path == "/cvk/certificate/base64" and method == "GET":
            self.reply(200, base64.b64encode(CERTIFICATE) + b"\n", "text/plain")
        elif path == "/cvk/certificate/pem" and method == "GET":
            self.reply(200, PEM, "application/x-pem-file")
        elif path == "/media/v1/key-request" and method == "POST":
            if not self.bearer_ok():
                self.json(401, {"error": "unauthorized"})
                return
            spc = base64.b64decode(json.loads(body)["spcData"], validate=True)
            self.json(200, {"status": "success", "wrappedKey": base64.b64encode(ckc_for(spc)).decode()})
        elif path in ("/jw/license", "/drmx/license") and method == "POST":
            if not self.octet_spc():
                self.reply(415)
                return
            self.reply(200, ckc_for(body))
        elif path == "/cvk/license" and method == "POST":
            if not self.octet_spc() or not self.headers.get("x-drm-brandGuid") or not self.headers.get("x-drm-usertoken"):
                self.json(403, {"error": "missing tenant or user token"})
                return
            if (self.headers.get("Accept") or "").startswith("application/json"):
                self.json(200, {"ckc": base64.b64encode(ckc_for(body)).decode()})
            else:
                self.reply(200, ckc_for(body))
        elif path == "/drmx/playback-session" and method == "POST":
            if not self.bearer_ok():
                self.json(401, {"error": "unauthorized"})
                return
            request = json.loads(body)
            session = "drmx-" + secrets.token_hex(4)
            self.json(200, {
                "playbackId": session, "assetId": request["contentId"], "title": "Lesson", "drmSystem": "fairplay",
                "mediaUrl": self.base() + "/origin/lesson/master.m3u8?token=t",
                "mediaUrlExpiresAt": "2099-01-01T00:00:00Z",
                "certificateUrl": self.base() + "/drmx/certificate",
                "licenseUrl": self.base() + "/drmx/license?grant=" + session,
                "sessionId": session, "releaseUrl": self.base() + "/drmx/release/" + session,
                "expiresAt": "2099-01-01T00:00:00Z"})
        elif path.startswith("/drmx/release/") and method == "DELETE":
            with State.lock:
                State.released.append(path.rsplit("/", 1)[1])
            self.reply(204)
        elif path == "/media/v1/playback" and method == "POST":
            self.start_playback(body)
        elif re.fullmatch(r"/media/v1/playback/[A-Za-z0-9_-]+/media-url", path) and method == "POST":
            self.renew(path.split("/")[4])
        elif re.fullmatch(r"/media/v1/playback/[A-Za-z0-9_-]+", path) and method == "DELETE":
            if not self.bearer_ok():
                self.json(401, {"error": "unauthorized"})
                return
            with State.lock:
                playback = State.playbacks.get(path.split("/")[4])
                if playback is not None:
                    playback["released"] = True
            self.reply(204 if playback is not None else 404)
        elif re.fullmatch(r"/media/v1/session/[A-Za-z0-9_-]+/heartbeat", path) and method == "POST":
            self.json(200 if self.bearer_ok() else 401, {})
        elif path.startswith("/v2/media/") and method == "GET":
            self.describe(path[len("/v2/media/"):], query)
        elif path.startswith("/origin/") and method in ("GET", "HEAD"):
            self.origin(path[len("/origin/"):], query)
        else:
            self.json(404, {"error": "not found"})

    def media_url(self, asset, uses=None):
        token = secrets.token_urlsafe(8)
        with State.lock:
            State.tokens[token] = self.args.uses if uses is None else uses
        return "%s/origin/%s?token=%s" % (self.base(), self.args.assets[asset], token)

    def expires_at(self):
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + self.args.expires_in))

    def start_playback(self, body):
        if not self.bearer_ok():
            self.json(401, {"error": "unauthorized"})
            return
        request = json.loads(body)
        asset = request["assetId"]
        if asset not in self.args.assets:
            self.json(403, {"error": "not entitled", "reason": "not_entitled"})
            return
        playback = secrets.token_urlsafe(12)
        with State.lock:
            State.playbacks[playback] = {"released": False, "asset": asset}
        self.json(200, {
            "playbackId": playback, "assetId": asset, "title": "Talk", "drmSystem": request["drmSystem"],
            "mediaUrl": self.media_url(asset, self.args.initial_uses), "mediaUrlExpiresAt": self.expires_at(),
            "licenseUrl": self.args.kas or self.base(), "sessionId": "stub-session-" + playback,
            "heartbeatUrl": self.base() + "/media/v1/session/stub-session-" + playback + "/heartbeat",
            "releaseUrl": self.base() + "/media/v1/playback/" + playback, "expiresAt": self.expires_at()})

    def renew(self, playback_id):
        if not self.bearer_ok():
            self.json(401, {"error": "unauthorized"})
            return
        with State.lock:
            playback = State.playbacks.get(playback_id)
        if playback is None or playback["released"]:
            self.json(403, {"error": "released"})
            return
        self.json(200, {"mediaUrl": self.media_url(playback["asset"]), "mediaUrlExpiresAt": self.expires_at()})

    def describe(self, asset, query):
        # The stub takes any ?token= as a valid delivery JWT (the KAS checks real ones).
        if not (self.bearer_ok() or "token=" in query) or asset not in self.args.assets:
            self.json(403, {"error": "not entitled", "reason": "not_entitled"})
            return
        sources = [
            {"file": self.base() + "/origin/elsewhere.m3u8", "type": "application/vnd.apple.mpegurl",
             "drm": {"fairplay": {"processSpcUrl": self.base() + "/jw/license", "certificateUrl": self.base() + "/jw/certificate"}}},
            {"file": self.media_url(asset), "type": "application/vnd.apple.mpegurl",
             "drm": {"com.arkavo.tdf": {"kasUrl": self.args.kas or self.base(), "playbackUrl": self.base() + "/media/v1/playback"}}},
            {"file": self.base() + "/origin/clearkey.m3u8", "type": "application/vnd.apple.mpegurl",
             "drm": {"org.w3.clearkey": {"licenseUrl": self.base() + "/clearkey"}}},
        ]
        random.shuffle(sources)
        self.json(200, {"title": "Talk", "kind": "Single Item", "playlist": [
            {"mediaid": asset, "title": "Talk", "duration": 4, "sources": sources, "tracks": []}]})

    def origin(self, relative, query):
        token = dict(p.split("=", 1) for p in query.split("&") if "=" in p).get("token")
        with State.lock:
            left = State.tokens.get(token, 0)
            if left > 0:
                State.tokens[token] = left - 1
        if left <= 0:
            self.reply(403, b"<html>403 Forbidden</html>", "text/html")
            return
        full = os.path.realpath(os.path.join(self.args.root, relative))
        if not full.startswith(os.path.realpath(self.args.root) + os.sep) or not os.path.isfile(full):
            self.reply(404)
            return
        with open(full, "rb") as handle:
            data = handle.read()
        match = re.fullmatch(r"bytes=(\d*)-(\d*)", self.headers.get("Range") or "")
        if not match:
            self.reply(200, data)
            return
        first, last = match.group(1), match.group(2)
        if first == "":
            start, end = max(0, len(data) - int(last)), len(data) - 1
        else:
            start, end = int(first), min(len(data) - 1, int(last)) if last else len(data) - 1
        if start >= len(data) or start > end:
            self.reply(416, b"", headers=[("Content-Range", "bytes */%d" % len(data))])
            return
        self.reply(206, data[start:end + 1], headers=[("Content-Range", "bytes %d-%d/%d" % (start, end, len(data)))])


def main(argv):
    parser = argparse.ArgumentParser(prog="delivery_stub")
    parser.add_argument("--root", default=".")
    parser.add_argument("--asset", action="append", default=[])
    parser.add_argument("--kas", default="")
    parser.add_argument("--token", default="viewer-token")
    parser.add_argument("--uses", type=int, default=1000000)
    parser.add_argument("--initial-uses", type=int)
    parser.add_argument("--expires-in", type=int, default=3600)
    args = parser.parse_args(argv)
    args.assets = dict(item.split("=", 1) for item in args.asset)
    Handler.args = args
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)

    def watch_stdin():
        while sys.stdin.buffer.read(4096):
            pass
        server.shutdown()
    threading.Thread(target=watch_stdin, daemon=True).start()
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
