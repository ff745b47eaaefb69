"""Time to the first clear byte from a cold start, as a composite (no `player` verb talks to the
KAS yet): a new TCP connection, `session/start`, `key-request` with a fresh P-256 client key, the
key unwrapped here (ECDH + HKDF + AES-GCM, python `cryptography`), then `player decrypt` of the
init segment and the first video segment started as a new process, until its first byte of clear
media arrives on a pipe. Python's own start-up is not counted; everything after is.

Usage: first_byte.py PORT PACKAGE_DIR TOKEN PLAYER [--runs N]
Runs alternate between the package's manifest as is (content-key cache warm: a popular asset) and
a byte-distinct copy (cache cold: the first viewer of an asset). Prints one JSON line.
"""
import argparse
import base64
import http.client
import json
import statistics
import subprocess
import time

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from keypool import cold_variant, unwrap
from unwrap_keys import tenc_kid


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("package_dir")
    parser.add_argument("token")
    parser.add_argument("player")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    manifest = open(f"{args.package_dir}/manifest.json", "rb").read()
    policy = json.loads(base64.b64decode(json.loads(manifest)["encryptionInformation"]["policy"]))
    asset = policy["uuid"]
    init = f"{args.package_dir}/video-init.mp4"
    segment = f"{args.package_dir}/video-segment0.m4s"
    kid = tenc_kid(open(init, "rb").read()).hex()
    headers = {"Authorization": f"Bearer {args.token}", "Content-Type": "application/json"}
    results = {"warm": [], "cold": []}
    for run in range(2 * args.runs):
        cache = "warm" if run % 2 == 0 else "cold"
        manifest_bytes = manifest if cache == "warm" else cold_variant(manifest, 4 ** 19 + run)
        t0 = time.perf_counter()
        client = ec.generate_private_key(ec.SECP256R1())
        pem = client.public_key().public_bytes(serialization.Encoding.PEM,
                                               serialization.PublicFormat.SubjectPublicKeyInfo).decode()
        connection = http.client.HTTPConnection("127.0.0.1", args.port, timeout=10)
        connection.request("POST", "/media/v1/session/start", json.dumps(
            {"assetId": asset, "protocol": "tdf", "playbackId": f"first-byte-{run}"}), headers)
        response = connection.getresponse()
        started = json.loads(response.read())
        if response.status != 200:
            raise SystemExit(f"first_byte: session start answered {response.status}")
        t_session = time.perf_counter()
        connection.request("POST", "/media/v1/key-request", json.dumps({
            "assetId": asset, "component": "video", "sessionId": started["sessionId"],
            "tdfManifest": base64.b64encode(manifest_bytes).decode(), "clientPublicKey": pem}), headers)
        response = connection.getresponse()
        answer = json.loads(response.read())
        if response.status != 200:
            raise SystemExit(f"first_byte: key request answered {response.status}")
        key = unwrap(answer, client).hex()
        t_key = time.perf_counter()
        player = subprocess.Popen([args.player, "decrypt", init, segment, "--key", f"{kid}:{key}", "--quiet"],
                                  stdout=subprocess.PIPE)
        first = player.stdout.read(1)
        t_first = time.perf_counter()
        rest = player.stdout.read()
        if player.wait() != 0 or not first:
            raise SystemExit("first_byte: player decrypt failed")
        connection.request("DELETE", f"/media/v1/session/{started['sessionId']}", headers=headers)
        connection.getresponse().read()
        connection.close()
        results[cache].append({"total_ms": (t_first - t0) * 1e3, "session_ms": (t_session - t0) * 1e3,
                               "key_ms": (t_key - t_session) * 1e3, "player_first_byte_ms": (t_first - t_key) * 1e3,
                               "bytes": len(first) + len(rest)})

    def summary(rows: list) -> dict:
        return {field: {"median": round(statistics.median(r[field] for r in rows), 2),
                        "min": round(min(r[field] for r in rows), 2), "max": round(max(r[field] for r in rows), 2)}
                for field in ("total_ms", "session_ms", "key_ms", "player_first_byte_ms")}

    print(json.dumps({"kind": "first_byte", "runs": args.runs, "warm": summary(results["warm"]),
                      "cold": summary(results["cold"])}))


if __name__ == "__main__":
    main()
