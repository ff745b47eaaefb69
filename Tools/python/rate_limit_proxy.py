#!/usr/bin/env python3
"""A reverse proxy on 127.0.0.1 that plays a key service's rate limit (standard library only).

Forwards every request to --upstream (a real `kas serve`) and returns its answer, except the
first --limit-first POSTs to --path, which it answers itself as a rate-limited key service does:
429, `Retry-After: --retry-after`, a JSON body without a refusal code. Each request's outcome is
appended to --events, one line each in the order answered (`limited METHOD PATH`, or
`forwarded METHOD PATH STATUS`), so
a test can assert what the client did and in which order without comparing durations (the
request path is logged, never a query, body or header).

    rate_limit_proxy.py --upstream http://127.0.0.1:PORT --path /media/v1/rewrap \
        --limit-first 1 --retry-after 1 --events FILE

Prints its port on the first stdout line and exits when its stdin closes. Bodies and headers
are never logged (they carry bearer tokens and wrapped keys).
"""

import argparse
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from loopback_server import allow_termination, exit_when_stdin_closes

HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "host"}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *_):
        pass

    def record(self, line):
        with self.server.lock:
            with open(self.server.events, "a") as events:
                events.write(line + "\n")

    def answer(self, status, headers, body):
        self.send_response(status)
        for name, value in headers:
            if name.lower() not in HOP_BY_HOP:
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def forward(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        if self.command == "POST" and self.path.split("?")[0] == self.server.limited_path:
            with self.server.lock:
                limit = self.server.remaining > 0
                if limit:
                    self.server.remaining -= 1
            if limit:
                self.record(f"limited {self.command} {self.server.limited_path}")
                self.answer(429, [("Content-Type", "application/json"), ("Retry-After", self.server.retry_after)],
                            b'{"error":"rate limit"}')
                return
        request = urllib.request.Request(self.server.upstream + self.path, data=body, method=self.command)
        for name, value in self.headers.items():
            if name.lower() not in HOP_BY_HOP:
                request.add_header(name, value)
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                status, headers, payload = response.status, response.getheaders(), response.read()
        except urllib.error.HTTPError as error:
            status, headers, payload = error.code, error.headers.items(), error.read()
        self.record(f"forwarded {self.command} {self.path.split('?')[0]} {status}")
        self.answer(status, headers, payload)

    do_GET = do_POST = do_PUT = do_DELETE = forward


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--upstream", required=True)
    parser.add_argument("--path", required=True)
    parser.add_argument("--limit-first", type=int, default=1)
    parser.add_argument("--retry-after", default="1")
    parser.add_argument("--events", required=True)
    args = parser.parse_args()
    allow_termination()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.upstream = args.upstream.rstrip("/")
    server.limited_path = args.path
    server.remaining = args.limit_first
    server.retry_after = args.retry_after
    server.events = args.events
    server.lock = threading.Lock()

    print(server.server_address[1], flush=True)
    exit_when_stdin_closes()
    server.serve_forever()


if __name__ == "__main__":
    main()
