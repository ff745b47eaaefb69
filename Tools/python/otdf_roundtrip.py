#!/usr/bin/env python3
"""Drive otdf-python 0.11.0, a real OpenTDF client, against a KAS's Connect routes.

    otdf_roundtrip.py encrypt IN -o OUT.tdf --platform URL [--token JWT] [--attribute FQN ...]
    otdf_roundtrip.py decrypt IN.tdf -o OUT --platform URL [--token JWT]
    otdf_roundtrip.py tamper-policy IN.tdf -o OUT.tdf [--attribute FQN ...]

encrypt: otdf-python fetches the KAS public key itself (Connect POST
<platform>/kas.AccessService/PublicKey, application/proto, gzip request body) and wraps the
payload key to it (RSA-OAEP SHA-1, policy binding base64(hex(HMAC))).
decrypt: otdf-python asks the KAS to rewrap (Connect POST <platform>/kas.AccessService/Rewrap
with a signed request token, bearer token in Authorization when --token is given; without
--token no Authorization header is sent).
tamper-policy: rewrites the manifest's policy with the given data attributes, keeping the key
access objects and their bindings (what an attacker who wants looser rules would do).

Exit 0 on success; 1 with one line on stderr on failure (the SDK's error text, which carries
the KAS's Connect error code and message).
"""

import argparse
import base64
import json
import logging
import os
import sys
import tempfile
import zipfile


def write_atomically(path, data):
    directory = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=".otdf_roundtrip-", dir=directory)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def build_sdk(platform, token):
    from otdf_python.sdk_builder import SDKBuilder

    builder = SDKBuilder().set_platform_endpoint(platform).use_insecure_plaintext_connection(True)
    if token:
        builder = builder.bearer_token(token)
    return builder.build()


def encrypt(args):
    sdk = build_sdk(args.platform, args.token)
    config = sdk.new_tdf_config(attributes=args.attribute)
    with open(args.input, "rb") as source:
        data = source.read()
    directory = os.path.dirname(os.path.abspath(args.output))
    handle, temporary = tempfile.mkstemp(prefix=".otdf_roundtrip-", dir=directory)
    try:
        with os.fdopen(handle, "wb") as out:
            sdk.create_tdf(data, config, output_stream=out)
        os.replace(temporary, args.output)
    except BaseException:
        os.unlink(temporary)
        raise


def decrypt(args):
    sdk = build_sdk(args.platform, args.token)
    with open(args.input, "rb") as source:
        data = source.read()
    reader = sdk.load_tdf(data)
    write_atomically(args.output, reader.payload)


def tamper_policy(args):
    with zipfile.ZipFile(args.input) as archive:
        entries = [(info, archive.read(info.filename)) for info in archive.infolist()]
    rewritten = []
    for info, data in entries:
        if info.filename == "0.manifest.json":
            manifest = json.loads(data)
            policy = json.loads(base64.b64decode(manifest["encryptionInformation"]["policy"]))
            policy["body"]["dataAttributes"] = [{"attribute": a} for a in args.attribute] or None
            text = json.dumps(policy).encode()
            manifest["encryptionInformation"]["policy"] = base64.b64encode(text).decode()
            data = json.dumps(manifest).encode()
        rewritten.append((info.filename, data))
    directory = os.path.dirname(os.path.abspath(args.output))
    handle, temporary = tempfile.mkstemp(prefix=".otdf_roundtrip-", dir=directory)
    os.close(handle)
    try:
        with zipfile.ZipFile(temporary, "w", zipfile.ZIP_STORED) as out:
            for name, data in rewritten:
                out.writestr(name, data)
        os.replace(temporary, args.output)
    except BaseException:
        os.unlink(temporary)
        raise


def main(argv):
    parser = argparse.ArgumentParser(prog="otdf_roundtrip")
    verbs = parser.add_subparsers(dest="verb", required=True)
    for name in ("encrypt", "decrypt"):
        verb = verbs.add_parser(name)
        verb.add_argument("input")
        verb.add_argument("-o", "--output", required=True)
        verb.add_argument("--platform", required=True, help="platform endpoint, e.g. http://127.0.0.1:8080")
        verb.add_argument("--token", help="bearer token (none: no Authorization header)")
        if name == "encrypt":
            verb.add_argument("--attribute", action="append", default=[])
    tamper = verbs.add_parser("tamper-policy")
    tamper.add_argument("input")
    tamper.add_argument("-o", "--output", required=True)
    tamper.add_argument("--attribute", action="append", default=[])
    args = parser.parse_args(argv)
    # otdf-python reports why the KAS refused only in WARNING/ERROR log records (it then raises
    # a generic error); collect those for the error line. It logs the signed request token at
    # INFO, so nothing below WARNING is kept, and nothing is written to the console.
    collector = Collector()
    root = logging.getLogger()
    root.handlers = [collector]
    root.setLevel(logging.WARNING)

    try:
        {"encrypt": encrypt, "decrypt": decrypt, "tamper-policy": tamper_policy}[args.verb](args)
    except Exception as error:  # one line per failure
        message = " ".join(str(error).split())
        causes = "; ".join(collector.messages)
        suffix = f" (SDK log: {causes})" if causes else ""
        print(f"otdf_roundtrip: error: {type(error).__name__}: {message}{suffix}", file=sys.stderr)
        return 1
    return 0


class Collector(logging.Handler):
    """Keeps the distinct WARNING+ messages, each on one line, the traceback dumps left out."""

    def __init__(self):
        super().__init__(level=logging.WARNING)
        self.messages = []

    def emit(self, record):
        text = " ".join(record.getMessage().split())
        if text.startswith("Full traceback") or text in self.messages:
            return
        self.messages.append(text)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
