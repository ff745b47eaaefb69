"""Time to the first clear byte from a cold process start of the real player: `player play SOURCE
--kas URL --token TOKEN --json` started as a new process, N times per case, against the bench's
running `kas serve`. The player admits the fps-v2 package, starts a media session per component,
gets and unwraps every component's key, then decrypts and muxes; its clear fMP4 goes to stdout,
read here through a pipe.

Measured by the bench: wall time from just before the spawn (fork + exec included) to the first
byte of clear media on the pipe (`spawn_to_first_byte_ms`), and to the first byte of the first
`mdat` payload (`spawn_to_first_sample_ms`: the first decrypted sample, after the init segment and
the first `moof`). Reported by the player on stderr (`--json`): `first-clear-byte` (ms from the
start of its playback, i.e. after its own process start-up and argument parsing), `key-delivered`
per component (ms from the start of that component's session start); the arrival of its
`session-started` lines is timestamped here relative to the spawn.

Usage: first_byte.py PLAYER KAS_URL TOKEN PACKAGE_ZIP PACKAGE_DIR [--origin-server SCRIPT] [--runs N]
Cases, alternating run by run:
  file-warm   the package file as packaged (the KAS content-key cache already holds its manifest)
  file-cold   a copy of the package directory (hard links) whose manifest is byte-distinct (trailing
              whitespace; the KAS unwraps every component key with RSA), one new copy per run
  http-warm   the package file served over plain http on loopback by SCRIPT
              (Tools/python/range_server.py: Range requests), started here, when --origin-server is given
Prints one JSON line.
"""
import argparse
import json
import os
import shutil
import statistics
import sys
import subprocess
import tempfile
import threading
import time

from keypool import cold_variant


class FirstSample:
    """Follows top-level ISO BMFF boxes on the stream to find where the first mdat payload starts."""

    def __init__(self) -> None:
        self.buffer = b""
        self.offset = 0          # stream offset of self.buffer[0]
        self.sample_at = None    # stream offset of the first mdat payload byte

    def feed(self, chunk: bytes) -> None:
        if self.sample_at is not None:
            return
        self.buffer += chunk
        while len(self.buffer) >= 8:
            size = int.from_bytes(self.buffer[:4], "big")
            kind = self.buffer[4:8]
            header = 8
            if size == 1:
                if len(self.buffer) < 16:
                    return
                size, header = int.from_bytes(self.buffer[8:16], "big"), 16
            if kind == b"mdat":
                self.sample_at = self.offset + header
                self.buffer = b""
                return
            if size < header:
                raise SystemExit("first_byte: malformed box on the player's stdout")
            if len(self.buffer) < size:
                return
            self.buffer = self.buffer[size:]
            self.offset += size


def run_once(command: list) -> dict:
    events = []
    t0 = time.perf_counter()
    player = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)

    def read_stderr() -> None:
        for line in player.stderr:
            stamp = time.perf_counter()
            try:
                events.append((stamp, json.loads(line)))
            except ValueError:
                events.append((stamp, {"event": "text", "text": line.decode(errors="replace").strip()}))

    reader = threading.Thread(target=read_stderr)
    reader.start()
    fd = player.stdout.fileno()
    total, t_first, t_sample = 0, None, None
    sample = FirstSample()
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        now = time.perf_counter()
        if t_first is None:
            t_first = now
        total += len(chunk)
        if t_sample is None:
            sample.feed(chunk)
            if sample.sample_at is not None and total > sample.sample_at:
                t_sample = now
    status = player.wait()
    reader.join()
    result = next((e for _, e in events if e.get("event") == "result"), None)
    if status != 0 or t_first is None or not result or not result.get("ok"):
        raise SystemExit(f"first_byte: player play failed (status {status}): {[e for _, e in events][-3:]}")
    row = {"spawn_to_first_byte_ms": (t_first - t0) * 1e3,
           "spawn_to_first_sample_ms": (t_sample - t0) * 1e3 if t_sample else None,
           "bytes": total}
    started = [stamp for stamp, e in events if e.get("event") == "session-started"]
    if started:
        row["spawn_to_sessions_started_ms"] = (max(started) - t0) * 1e3
    for _, e in events:
        if e.get("event") == "first-clear-byte":
            row["player_first_clear_byte_ms"] = float(e["ms"])
        elif e.get("event") == "key-delivered":
            row[f"player_key_{e['component']}_ms"] = float(e["ms"])
    return row


def link(source: str, target: str) -> None:
    # Admission takes regular files only (no symlinks): a hard link, or a copy across file systems.
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def summary(rows: list) -> dict:
    fields = sorted({k for r in rows for k, v in r.items() if k != "bytes" and v is not None})
    out = {}
    for field in fields:
        values = [r[field] for r in rows if r.get(field) is not None]
        out[field] = {"median": round(statistics.median(values), 2), "min": round(min(values), 2),
                      "max": round(max(values), 2), "n": len(values)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("player")
    parser.add_argument("kas_url")
    parser.add_argument("token")
    parser.add_argument("package_zip")
    parser.add_argument("package_dir")
    parser.add_argument("--origin-server", help="Tools/python/range_server.py, to serve the package over http")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    base = [args.player, "play", "--kas", args.kas_url, "--token", args.token, "--json"]
    manifest = open(os.path.join(args.package_dir, "manifest.json"), "rb").read()
    scratch = tempfile.mkdtemp(prefix="first-byte.")
    cases = {"file-warm": [], "file-cold": []}
    origin, origin_url = None, None
    if args.origin_server:
        origin = subprocess.Popen([sys.executable, args.origin_server, "--root", os.path.dirname(os.path.abspath(args.package_zip))],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        port = int(origin.stdout.readline())
        origin_url = f"http://127.0.0.1:{port}/{os.path.basename(args.package_zip)}"
        cases["http-warm"] = []
    try:
        # One unrecorded run: binary and package in the page cache, the KAS cache holds the manifest.
        run_once(base + [args.package_zip])
        for run in range(args.runs):
            for case in cases:
                if case == "file-warm":
                    source = args.package_zip
                elif case == "http-warm":
                    source = origin_url
                else:
                    source = os.path.join(scratch, f"cold-{run}")
                    os.mkdir(source)
                    for name in os.listdir(args.package_dir):
                        if name != "manifest.json":
                            link(os.path.join(args.package_dir, name), os.path.join(source, name))
                    with open(os.path.join(source, "manifest.json"), "wb") as f:
                        f.write(cold_variant(manifest, 4 ** 18 + 7919 * run))
                cases[case].append(run_once(base + [source]))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        if origin:
            origin.stdin.close()
            origin.wait(timeout=10)
    print(json.dumps({"kind": "first_byte", "method": "player-play", "runs": args.runs,
                      "bytes": cases["file-warm"][0]["bytes"],
                      "cases": {case: summary(rows) for case, rows in cases.items()}}))


if __name__ == "__main__":
    main()
