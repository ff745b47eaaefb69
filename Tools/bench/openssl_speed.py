"""Parses `openssl speed rsa2048` and `openssl speed ecdhp256` (OpenSSL 3.0 output) into one JSON line.
OpenSSL 3.0 reports RSA sign/verify; a sign is the same private-key exponentiation as an OAEP decrypt."""
import json
import re
import sys

rsa = open(sys.argv[1]).read()
ecdh = open(sys.argv[2]).read()
m = re.search(r"^rsa\s+2048 bits\s+\S+\s+\S+\s+([\d.]+)\s+([\d.]+)", rsa, re.M)
e = re.search(r"256 bits ecdh \(nistp256\)\s+\S+\s+([\d.]+)", ecdh)
if not m or not e:
    sys.exit("openssl_speed: cannot parse openssl speed output")
print(json.dumps({"kind": "openssl", "rsa2048_private_per_s": float(m.group(1)), "rsa2048_public_per_s": float(m.group(2)),
                  "ecdh_p256_per_s": float(e.group(1))}))
