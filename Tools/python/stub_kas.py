#!/usr/bin/env python3
"""A stub KAS serving ONLY the public-key route otdf-python 0.11.0 calls when it encrypts.

otdf-python fetches the KAS public key with a Connect unary call (connect-python 0.9):
    POST <platform>/kas.AccessService/PublicKey
    Content-Type: application/proto, Connect-Protocol-Version: 1,
    request body possibly gzip (Content-Encoding: gzip), response body an uncompressed
    kas.PublicKeyResponse {1: public_key (PEM string), 2: kid (string)}.
`application/json` requests get {"publicKey", "kid"}. The request's `algorithm` field
(kas.PublicKeyRequest field 1) picks the EC key for "ec:secp256r1", the RSA key otherwise.
Everything else answers 404. The protobuf is hand-encoded so this stub shares no code with the
client it serves.

    stub_kas.py --rsa-public-key PEM [--ec-public-key PEM] [--kid KID] [--stop-on-stdin-eof]

Prints its port on the first stdout line, then serves until killed, or, with
--stop-on-stdin-eof, until its stdin closes (a test harness closes the pipe, or dies, and the
stub goes with it: no signal needed, none can be blocked). Requests are logged to stderr.
"""

import argparse
import gzip
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROUTE = "/kas.AccessService/PublicKey"


def varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def read_varint(data, offset):
    shift = 0
    value = 0
    while True:
        if offset >= len(data) or shift > 63:
            raise ValueError("truncated varint")
        byte = data[offset]
        offset += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, offset


def proto_string_fields(data):
    """Length-delimited fields of a flat message, by field number; other wire types skipped."""
    fields = {}
    offset = 0
    while offset < len(data):
        tag, offset = read_varint(data, offset)
        number, wire = tag >> 3, tag & 7
        if wire == 0:
            _, offset = read_varint(data, offset)
        elif wire == 2:
            length, offset = read_varint(data, offset)
            if offset + length > len(data):
                raise ValueError("truncated field")
            fields[number] = data[offset:offset + length].decode("utf-8")
            offset += length
        else:
            raise ValueError("unsupported wire type")
    return fields


def proto_string(number, text):
    raw = text.encode("utf-8")
    return varint((number << 3) | 2) + varint(len(raw)) + raw


class Handler(BaseHTTPRequestHandler):
    keys = {}
    kid = "r1"

    def log_message(self, fmt, *args):
        sys.stderr.write("stub_kas: " + (fmt % args) + "\n")

    def reply(self, status, content_type, body):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def connect_error(self, status, code, message):
        body = json.dumps({"code": code, "message": message}).encode()
        self.reply(status, "application/json", body)

    def do_GET(self):
        self.log_message("GET %s (not served)", self.path)
        self.connect_error(404, "not_found", "only POST " + ROUTE + " is served")

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        content_type = self.headers.get("Content-Type", "")
        encoding = self.headers.get("Content-Encoding", "identity")
        self.log_message("POST %s content-type=%s content-encoding=%s connect-protocol-version=%s",
                         self.path, content_type, encoding, self.headers.get("Connect-Protocol-Version"))
        if self.path.split("?")[0] != ROUTE:
            self.connect_error(404, "not_found", "only POST " + ROUTE + " is served")
            return
        try:
            if encoding == "gzip":
                body = gzip.decompress(body)
            elif encoding != "identity":
                raise ValueError("unsupported content-encoding")
            if content_type.startswith("application/json"):
                algorithm = (json.loads(body or b"{}").get("algorithm") or "")
            elif content_type.startswith("application/proto"):
                algorithm = proto_string_fields(body).get(1, "")
            else:
                raise ValueError("unsupported content-type")
        except (ValueError, OSError, UnicodeDecodeError) as error:
            self.connect_error(400, "invalid_argument", str(error))
            return
        kind = "ec" if algorithm.startswith("ec:") else "rsa"
        pem = self.keys.get(kind)
        if pem is None:
            self.connect_error(404, "not_found", "no key for algorithm " + algorithm)
            return
        kid = self.kid if kind == "rsa" else self.kid + "-ec"
        if content_type.startswith("application/json"):
            self.reply(200, "application/json", json.dumps({"publicKey": pem, "kid": kid}).encode())
        else:
            self.reply(200, "application/proto", proto_string(1, pem) + proto_string(2, kid))


def main(argv):
    parser = argparse.ArgumentParser(prog="stub_kas")
    parser.add_argument("--rsa-public-key", required=True)
    parser.add_argument("--ec-public-key")
    parser.add_argument("--kid", default="r1")
    parser.add_argument("--stop-on-stdin-eof", action="store_true")
    args = parser.parse_args(argv)
    with open(args.rsa_public_key) as handle:
        Handler.keys["rsa"] = handle.read()
    if args.ec_public_key:
        with open(args.ec_public_key) as handle:
            Handler.keys["ec"] = handle.read()
    Handler.kid = args.kid
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    if args.stop_on_stdin_eof:
        def watch_stdin():
            while sys.stdin.buffer.read(4096):
                pass
            server.shutdown()
        threading.Thread(target=watch_stdin, daemon=True).start()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
