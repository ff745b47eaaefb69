#!/usr/bin/env python3
"""Encrypt a file to a Standard TDF with otdf-python 0.11.0, a real OpenTDF client.

    otdf_encrypt.py IN -o OUT.tdf --platform http://127.0.0.1:PORT
                    [--attribute FQN ...] [--segment-size N] [--mime-type T]

The KAS is the platform's `<platform>/kas`; otdf-python fetches its public key itself over the
Connect route (see stub_kas.py), exactly as it would against a real platform. Exit 1 with a
message on failure.
"""

import argparse
import logging
import os
import sys
import tempfile


def main(argv):
    parser = argparse.ArgumentParser(prog="otdf_encrypt")
    parser.add_argument("input")
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--platform", required=True, help="platform endpoint, e.g. http://127.0.0.1:8080")
    parser.add_argument("--attribute", action="append", default=[])
    parser.add_argument("--segment-size", type=int)
    parser.add_argument("--mime-type")
    parser.add_argument("--token", default="interop-test-token")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.CRITICAL)

    from otdf_python.sdk_builder import SDKBuilder

    try:
        sdk = (SDKBuilder()
               .set_platform_endpoint(args.platform)
               .use_insecure_plaintext_connection(True)
               .bearer_token(args.token)
               .build())
        options = {}
        if args.segment_size:
            options["default_segment_size"] = args.segment_size
        if args.mime_type:
            options["mime_type"] = args.mime_type
        config = sdk.new_tdf_config(attributes=args.attribute, **options)
        with open(args.input, "rb") as source:
            data = source.read()
        directory = os.path.dirname(os.path.abspath(args.output))
        handle, temporary = tempfile.mkstemp(prefix=".otdf_encrypt-", dir=directory)
        try:
            with os.fdopen(handle, "wb") as out:
                sdk.create_tdf(data, config, output_stream=out)
            os.replace(temporary, args.output)
        except BaseException:
            os.unlink(temporary)
            raise
    except Exception as error:  # report any SDK failure as one line
        print(f"otdf_encrypt: error: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
