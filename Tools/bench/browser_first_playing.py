"""The browser's time from `load()` to the first `playing` event: Debian's chromium (headless,
Playwright) opens the KAS's own player page (`/player/?src=...`) in a cold browser context per
run, the viewer token is typed into the page, and the page's User Timing measure
`mediadrm-load-to-playing` (load() called → first playing event) is read back. The package comes
from SCRIPT (Tools/python/range_server.py --cors) on loopback.

Usage: browser_first_playing.py KAS_URL TOKEN PACKAGE_FILE --origin-server SCRIPT [--runs N]
Also read: `mediadrm-load-to-admitted` (the package admitted, before any KAS request) and
`mediadrm-load-to-keys` (every component's key in the CDM).
Prints one JSON line: {"kind": "browser_first_playing", "runs", "load_to_playing_ms",
"load_to_admitted_ms", "load_to_keys_ms"}, each {median, min, max, n, all}.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

from playwright.sync_api import sync_playwright


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("kas")
    parser.add_argument("token")
    parser.add_argument("package")
    parser.add_argument("--origin-server", required=True)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    root = tempfile.mkdtemp(prefix="bench-browser-")
    shutil.copy(args.package, os.path.join(root, "package.tdf"))
    origin = subprocess.Popen([sys.executable, args.origin_server, "--root", root, "--cors"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        src = f"http://127.0.0.1:{origin.stdout.readline().strip()}/package.tdf"
        figures = {}
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium",
                                                 args=["--no-sandbox", "--autoplay-policy=no-user-gesture-required"])
            # One unrecorded run: the browser process and its caches of the player modules warm.
            for run in range(args.runs + 1):
                context = browser.new_context()
                page = context.new_page()
                page.goto(f"{args.kas}/player/?src={src}")
                page.fill("#token", args.token)
                page.click("button[type=submit]")
                page.wait_for_function("() => performance.getEntriesByName('mediadrm-load-to-playing').length > 0", timeout=60000)
                measures = page.evaluate("() => Object.fromEntries(['playing', 'admitted', 'keys'].map("
                                         "(n) => [n, performance.getEntriesByName('mediadrm-load-to-' + n)[0]?.duration ?? null]))")
                if run > 0:
                    for name, value in measures.items():
                        figures.setdefault(name, []).append(round(value, 1) if value is not None else None)
                context.close()
            browser.close()
    finally:
        origin.stdin.close()
        origin.wait(timeout=10)
        shutil.rmtree(root, ignore_errors=True)
    summary = lambda values: {"median": statistics.median(values), "min": min(values), "max": max(values),
                              "n": len(values), "all": values}
    print(json.dumps({"kind": "browser_first_playing", "runs": args.runs,
                      "load_to_playing_ms": summary(figures["playing"]),
                      "load_to_admitted_ms": summary(figures["admitted"]),
                      "load_to_keys_ms": summary(figures["keys"])}))


if __name__ == "__main__":
    main()
