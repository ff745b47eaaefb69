#!/usr/bin/env python3
"""A test origin for the Client transport tests (standard library only).

Serves a directory on 127.0.0.1 (port 0 unless --port), prints the port on the first line of
stdout, and exits when its stdin closes (so a crashed test run leaves no server behind).

Files: GET and HEAD with single Range requests (`a-b`, `a-`, `-n`), 206 + Content-Range,
416 + `bytes */size`, ETag and Last-Modified; If-Range with another entity tag gets the whole
file (200), as RFC 9110 §13.1.5 says.

Rules from the command line (PATH is the request path without the query):
  --redirect PATH=TARGET[@CODE]   answer PATH with CODE (default 302) and Location: TARGET
  --status PATH=CODE              answer PATH with CODE and a body of server text
  --delay PATH=SECONDS            sleep before answering PATH

The same behaviours by path, so one server can serve many tests:
  /__status/CODE                  CODE with a body of server text (429/503 add Retry-After: 7)
  /__redirect/CODE/REST           CODE with Location: /REST
  /__delay/MILLISECONDS/REST      sleep, then answer /REST; a client that hangs up during the
                                  sleep ends it, and its path is recorded in `hangups`
  /__echo                         any method: JSON {method, path, bodyLength, bodySHA256,
                                  authorization, contentType, headers}
  /__big/N                        N bytes with Content-Length
  /__chunked/N                    N bytes, chunked (no Content-Length)
  /__norange/FILE                 FILE, ignoring Range (always 200)
  /__badrange/FILE                FILE, 206 with a Content-Range one byte off
  /__dropafter/N/FILE             FILE (Range honoured), but the first GET of this path with an
                                  open-ended range (`bytes=a-`, how a download asks) sends its
                                  headers and N body bytes, then drops the connection
  /__rate/BYTES_PER_SECOND        from now on, every file body this server sends shares one link
                                  of that rate (0: unlimited again); answers 204. A throttled
                                  origin for browser tests in engines without network emulation
  /__hits                         JSON {hits: {path: count}, log: [{method, path, authorization,
                                  range, ifRange}],
                                  hangups: [path]} (not itself recorded); `hangups` lists, in
                                  order, the /__delay paths whose client closed the connection
                                  before the answer (how a test sees a cancelled transfer end)

TLS: --cert FILE --key FILE wraps the socket; the handshake runs in the handler thread.

--cors: a public package origin for browsers (docs/web.md): every answer carries
Access-Control-Allow-Origin: * and exposes Content-Range, Content-Length and ETag; OPTIONS
preflights are answered 204 allowing GET/HEAD and the Range header.

--stall: instead of serving, listen with a full accept queue that is never drained, so a new
connection attempt hangs in the TCP handshake (a connect timeout test without leaving loopback).
"""
import argparse
import email.utils
import hashlib
import http.server
import json
import os
import posixpath
import socket
import re
import select
import ssl
import threading
import time
import urllib.parse

from loopback_server import allow_termination, exit_when_stdin_closes

SERVER_TEXT = b"internal detail from the server: do-not-echo-this-text\n"


class State:
    def __init__(self):
        self.lock = threading.Lock()
        self.hits = {}
        self.log = []
        self.hangups = []
        self.dropped = set()

    def record(self, method, path, authorization, range_header=None, if_range=None):
        with self.lock:
            self.hits[path] = self.hits.get(path, 0) + 1
            self.log.append({"method": method, "path": path, "authorization": authorization,
                             "range": range_header, "ifRange": if_range})

    def first_drop(self, path):
        """True the first time only, for each path."""
        with self.lock:
            if path in self.dropped:
                return False
            self.dropped.add(path)
            return True

    def hung_up(self, path):
        with self.lock:
            self.hangups.append(path)

    def snapshot(self):
        with self.lock:
            return {"hits": dict(self.hits), "log": list(self.log), "hangups": list(self.hangups)}


class Link:
    """The rate every file body shares (/__rate): each piece reserves its time on the link in
    arrival order, so parallel answers split the rate as on a real link."""

    PIECE = 4096

    def __init__(self):
        self.lock = threading.Lock()
        self.rate = 0
        self.free_at = 0.0

    def set_rate(self, rate):
        with self.lock:
            self.rate = rate
            self.free_at = time.monotonic()

    def send(self, write, body):
        if not self.rate:
            write(body)
            return
        for at in range(0, len(body), self.PIECE):
            piece = body[at : at + self.PIECE]
            with self.lock:
                rate = self.rate
                if rate:
                    start = max(time.monotonic(), self.free_at)
                    self.free_at = start + len(piece) / rate
            if rate:
                time.sleep(max(0.0, start - time.monotonic()))
            write(piece)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "range-origin/1"
    sys_version = ""

    def log_message(self, format, *args):
        pass

    def do_GET(self):
        self.dispatch(send_body=True)

    def do_HEAD(self):
        self.dispatch(send_body=False)

    def do_POST(self):
        self.dispatch(send_body=True)

    def do_PUT(self):
        self.dispatch(send_body=True)

    def do_DELETE(self):
        self.dispatch(send_body=True)

    def do_OPTIONS(self):
        if not self.server.cors:
            self.dispatch(send_body=True)
            return
        self.send_response(204)
        self.send_header("Access-Control-Allow-Methods", "GET, HEAD")
        self.send_header("Access-Control-Allow-Headers", "Range")
        self.send_header("Access-Control-Max-Age", "600")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def end_headers(self):
        if getattr(self.server, "cors", False):
            self.send_header("Access-Control-Allow-Origin", "*")
            self.send_header("Access-Control-Expose-Headers", "Content-Range, Content-Length, ETag")
        super().end_headers()

    # -- helpers -------------------------------------------------------------------------------

    def read_body(self):
        length = self.headers.get("Content-Length")
        if length:
            return self.rfile.read(int(length))
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().strip().split(b";")[0], 16)
                if size == 0:
                    self.rfile.readline()
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
        return b""

    def client_hangs_up_within(self, seconds):
        """Waits up to `seconds`; True as soon as the client closes the connection (end of
        stream or reset), False when the time passes first or the client sends more bytes (then
        the rest of the time is slept)."""
        deadline = time.monotonic() + seconds
        raw = self.connection
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            readable, _, _ = select.select([raw], [], [], remaining)
            if not readable:
                return False
            try:
                peeked = socket.socket.recv(raw, 1, socket.MSG_PEEK)
            except (ConnectionResetError, BrokenPipeError):
                return True
            except OSError:
                peeked = b"?"
            if peeked == b"":
                return True
            time.sleep(max(0.0, deadline - time.monotonic()))
            return False

    def reply(self, code, body=b"", headers=None, send_body=True):
        self.send_response(code)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if send_body and body:
            self.server.link.send(self.wfile.write, body)

    # -- dispatch ------------------------------------------------------------------------------

    def dispatch(self, send_body):
        body = self.read_body()
        path = urllib.parse.urlsplit(self.path).path
        m = re.fullmatch(r"/__rate/(\d+)", path)
        if m:
            self.server.link.set_rate(int(m.group(1)))
            self.reply(204, b"", None, send_body)
            return
        if path == "/__hits":
            self.reply(200, json.dumps(self.server.state.snapshot()).encode(),
                       {"Content-Type": "application/json"}, send_body)
            return
        self.server.state.record(self.command, path, self.headers.get("Authorization") is not None,
                                 self.headers.get("Range"), self.headers.get("If-Range"))
        rules = self.server.rules
        if path in rules["delay"]:
            time.sleep(rules["delay"][path])
        if path in rules["redirect"]:
            target, code = rules["redirect"][path]
            self.reply(code, b"moved\n", {"Location": target}, send_body)
            return
        if path in rules["status"]:
            self.reply(rules["status"][path], SERVER_TEXT, {"Content-Type": "text/plain"}, send_body)
            return

        m = re.fullmatch(r"/__delay/(\d+)(/.*)", path)
        if m:
            if self.client_hangs_up_within(int(m.group(1)) / 1000.0):
                self.server.state.hung_up(path)
                self.close_connection = True
                return
            path = m.group(2)
        m = re.fullmatch(r"/__status/(\d{3})", path)
        if m:
            code = int(m.group(1))
            extra = {"Content-Type": "text/plain"}
            if code in (429, 503):
                extra["Retry-After"] = "7"
            self.reply(code, SERVER_TEXT, extra, send_body)
            return
        m = re.fullmatch(r"/__redirect/(\d{3})(/.*)", path)
        if m:
            self.reply(int(m.group(1)), b"moved\n", {"Location": m.group(2)}, send_body)
            return
        if path == "/__echo":
            info = {
                "method": self.command,
                "path": self.path,
                "bodyLength": len(body),
                "bodySHA256": hashlib.sha256(body).hexdigest(),
                "authorization": self.headers.get("Authorization"),
                "contentType": self.headers.get("Content-Type"),
                "headers": [[k, v] for k, v in self.headers.items()],
            }
            self.reply(200, json.dumps(info).encode(), {"Content-Type": "application/json"}, send_body)
            return
        m = re.fullmatch(r"/__(big|chunked)/(\d+)", path)
        if m:
            self.stream(m.group(1) == "chunked", int(m.group(2)), send_body)
            return
        mode = "range"
        self.drop_after = None
        m = re.fullmatch(r"/__dropafter/(\d+)(/.*)", path)
        if m:
            open_ended = re.fullmatch(r"bytes=\d+-", (self.headers.get("Range") or "").strip())
            if self.command == "GET" and open_ended and self.server.state.first_drop(path):
                self.drop_after = int(m.group(1))
            path = m.group(2)
        m = re.fullmatch(r"/__(norange|badrange)(/.*)", path)
        if m:
            mode, path = m.group(1), m.group(2)
        self.serve_file(path, mode, send_body)

    def stream(self, chunked, total, send_body):
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(total))
        self.end_headers()
        if not send_body:
            return
        block = b"x" * 65536
        sent = 0
        try:
            while sent < total:
                piece = block[: min(len(block), total - sent)]
                if chunked:
                    self.wfile.write(b"%x\r\n" % len(piece) + piece + b"\r\n")
                else:
                    self.wfile.write(piece)
                sent += len(piece)
            if chunked:
                self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
            self.close_connection = True

    def serve_file(self, path, mode, send_body):
        if self.command not in ("GET", "HEAD"):
            self.reply(405, b"method not allowed\n", {"Allow": "GET, HEAD"}, send_body)
            return
        relative = posixpath.normpath(urllib.parse.unquote(path)).lstrip("/")
        full = os.path.realpath(os.path.join(self.server.root, relative))
        if not (full + os.sep).startswith(self.server.root + os.sep) and full != self.server.root:
            self.reply(404, b"not found\n", None, send_body)
            return
        if not os.path.isfile(full):
            self.reply(404, b"not found\n", None, send_body)
            return
        with open(full, "rb") as f:
            data = f.read()
        st = os.stat(full)
        size = len(data)
        headers = {
            "Content-Type": "application/octet-stream",
            "Accept-Ranges": "bytes",
            "ETag": '"%x-%x"' % (size, st.st_mtime_ns),
            "Last-Modified": email.utils.formatdate(st.st_mtime, usegmt=True),
        }
        spec = self.headers.get("Range")
        if_range = self.headers.get("If-Range")
        if if_range is not None and if_range != headers["ETag"]:
            spec = None
        if spec is None or mode == "norange":
            self.reply(200, data, headers, send_body)
            return
        m = re.fullmatch(r"bytes=(\d*)-(\d*)", spec.strip())
        if not m or (m.group(1) == "" and m.group(2) == ""):
            self.reply(200, data, headers, send_body)
            return
        if m.group(1) == "":
            suffix = int(m.group(2))
            if suffix == 0 or size == 0:
                headers["Content-Range"] = "bytes */%d" % size
                self.reply(416, b"", headers, send_body)
                return
            start, end = max(0, size - suffix), size - 1
        else:
            start = int(m.group(1))
            end = int(m.group(2)) if m.group(2) else size - 1
            end = min(end, size - 1)
            if start >= size or start > end:
                headers["Content-Range"] = "bytes */%d" % size
                self.reply(416, b"", headers, send_body)
                return
        shown = start + 1 if mode == "badrange" and start + 1 <= end else start
        headers["Content-Range"] = "bytes %d-%d/%d" % (shown, end, size)
        if self.drop_after is not None and send_body:
            # Announce the whole range, send a part, hang up: an interrupted download.
            self.send_response(206)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(end + 1 - start))
            self.end_headers()
            self.wfile.write(data[start : start + min(self.drop_after, end + 1 - start)])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        self.reply(206, data[start : end + 1], headers, send_body)


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        # Refused handshakes and clients that hang up are expected in these tests.
        pass


def parse_rules(args):
    rules = {"redirect": {}, "status": {}, "delay": {}}
    for item in args.redirect or []:
        path, target = item.split("=", 1)
        code = 302
        if "@" in target:
            target, code_text = target.rsplit("@", 1)
            code = int(code_text)
        rules["redirect"][path] = (target, code)
    for item in args.status or []:
        path, code = item.split("=", 1)
        rules["status"][path] = int(code)
    for item in args.delay or []:
        path, seconds = item.split("=", 1)
        rules["delay"][path] = float(seconds)
    return rules


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", default=".")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--redirect", action="append")
    parser.add_argument("--status", action="append")
    parser.add_argument("--delay", action="append")
    parser.add_argument("--stall", action="store_true")
    parser.add_argument("--cors", action="store_true")
    args = parser.parse_args()
    allow_termination()

    if args.stall:
        listener = socket.socket()
        listener.bind(("127.0.0.1", args.port))
        listener.listen(0)
        port = listener.getsockname()[1]
        fillers = []
        for _ in range(4):
            filler = socket.socket()
            filler.setblocking(False)
            try:
                filler.connect(("127.0.0.1", port))
            except BlockingIOError:
                pass
            fillers.append(filler)
        time.sleep(0.2)
        print(port, flush=True)
        exit_when_stdin_closes(block=True)
        return

    server = Server(("127.0.0.1", args.port), Handler)
    server.root = os.path.realpath(args.root)
    server.state = State()
    server.link = Link()
    server.rules = parse_rules(args)
    server.cors = args.cors
    if args.cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(args.cert, args.key)
        server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)

    print(server.server_address[1], flush=True)
    exit_when_stdin_closes()
    server.serve_forever()


if __name__ == "__main__":
    main()
