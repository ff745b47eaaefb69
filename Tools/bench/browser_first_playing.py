"""The browser's time from `load()` to the first `playing` event: Debian's chromium (headless,
Playwright) opens the KAS's own test form (`/player/test-form.html?src=...`) in a cold browser context per
run, the viewer token is typed into the page, and the page's User Timing measure
`mediadrm-load-to-playing` (load() called → first playing event) is read back. The package comes
from a loopback origin with CORS and Range: SCRIPT (Tools/python/range_server.py --cors), or with
--nginx Debian's nginx, the origin a deployment runs (docs/delivery.md), serving static files.

Usage: browser_first_playing.py KAS_URL TOKEN PACKAGE_FILE (--origin-server SCRIPT | --nginx) [--runs N]
                                [--compare-controls]
Also read: `mediadrm-load-to-admitted` (the package admitted, before any KAS request) and
`mediadrm-load-to-keys` (every component's key in the CDM).
--compare-controls: N more cold pages, alternating with the others, on which the element shows
its own controls from the start (an init script makes the page's `controls = false` show them),
where the page itself shows them only once it plays (docs/web.md, "Start-up").
Prints one JSON line: {"kind": "browser_first_playing", "runs", "load_to_playing_ms",
"load_to_admitted_ms", "load_to_keys_ms"[, "controls_from_start_ms"]}, each {median, min, max, n, all}.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import socket
import tempfile
import time
import urllib.request

from playwright.sync_api import sync_playwright

# Static files with Range (nginx's own) and CORS for the player page's origin; the preflight a
# Range request may need is answered here.
NGINX_CONF = """daemon off;
pid {work}/nginx.pid;
error_log {work}/error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {work}/tmp; proxy_temp_path {work}/tmp; fastcgi_temp_path {work}/tmp;
    uwsgi_temp_path {work}/tmp; scgi_temp_path {work}/tmp;
    types {{ application/octet-stream tdf; }}
    server {{
        listen 127.0.0.1:{port};
        root {root};
        location / {{
            if ($request_method = OPTIONS) {{
                add_header Access-Control-Allow-Origin $http_origin always;
                add_header Access-Control-Allow-Headers "Range" always;
                add_header Access-Control-Max-Age 600 always;
                return 204;
            }}
            add_header Access-Control-Allow-Origin $http_origin always;
            add_header Access-Control-Expose-Headers "Content-Length, Content-Range, Accept-Ranges" always;
        }}
    }}
}}
"""


# For --compare-controls: whatever the page sets, the element shows its controls.
CONTROLS_FROM_START = """Object.defineProperty(HTMLMediaElement.prototype, 'controls', {
  configurable: true, get() { return true; }, set(value) { this.setAttribute('controls', ''); } });"""

# Resolves once the page has recorded the measure, from a PerformanceObserver: Playwright's
# wait_for_function would poll on every animation frame and keep the measured page rendering.
WAIT_FOR_PLAYING = """() => new Promise((resolve, reject) => {
  const name = 'mediadrm-load-to-playing';
  if (performance.getEntriesByName(name).length) return resolve();
  setTimeout(() => reject(new Error('no first playing within 60 s')), 60000);
  new PerformanceObserver((list, observer) => {
    if (list.getEntriesByName(name).length) { observer.disconnect(); resolve(); }
  }).observe({ type: 'measure' });
})"""


def start_nginx(root, work):
    """nginx on a free loopback port serving `root`: (the process, its base URL)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    os.makedirs(os.path.join(work, "tmp"), exist_ok=True)
    conf = os.path.join(work, "nginx.conf")
    with open(conf, "w") as handle:
        handle.write(NGINX_CONF.format(work=work, port=port, root=root))
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    process = subprocess.Popen([nginx, "-p", work, "-c", conf], stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            urllib.request.urlopen(url + "/", timeout=1)
            break
        except urllib.error.HTTPError:
            break
        except OSError:
            if process.poll() is not None:
                sys.exit(f"nginx exited; see {work}/error.log")
            time.sleep(0.05)
    return process, url


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("kas")
    parser.add_argument("token")
    parser.add_argument("package")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--origin-server")
    source.add_argument("--nginx", action="store_true")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--compare-controls", action="store_true")
    args = parser.parse_args()
    root = tempfile.mkdtemp(prefix="bench-browser-")
    shutil.copy(args.package, os.path.join(root, "package.tdf"))
    work = tempfile.mkdtemp(prefix="bench-browser-origin-")
    if args.nginx:
        # nginx's workers drop root for `nobody`: the served directory must be readable by others.
        os.chmod(root, 0o755)
        os.chmod(os.path.join(root, "package.tdf"), 0o644)
        origin, base = start_nginx(root, work)
    else:
        origin = subprocess.Popen([sys.executable, args.origin_server, "--root", root, "--cors"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        base = f"http://127.0.0.1:{origin.stdout.readline().strip()}"
    try:
        src = f"{base}/package.tdf"
        figures = {}
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium",
                                                 args=["--no-sandbox", "--autoplay-policy=no-user-gesture-required"])
            # One unrecorded run: the browser process and its caches of the player modules warm.
            # With --compare-controls every other run shows the controls from the start.
            pages = [(run, False) for run in range(args.runs + 1)]
            if args.compare_controls:
                pages = [(0, False)] + [(run, shown) for run in range(1, args.runs + 1) for shown in (False, True)]
            for run, controls in pages:
                context = browser.new_context()
                page = context.new_page()
                if controls:
                    page.add_init_script(CONTROLS_FROM_START)
                page.goto(f"{args.kas}/player/test-form.html?src={src}")
                page.fill("#token", args.token)
                page.click("button[type=submit]")
                page.evaluate(WAIT_FOR_PLAYING)
                measures = page.evaluate("() => Object.fromEntries(['playing', 'admitted', 'keys'].map("
                                         "(n) => [n, performance.getEntriesByName('mediadrm-load-to-' + n)[0]?.duration ?? null]))")
                if controls:
                    figures.setdefault("controls", []).append(round(measures["playing"], 1))
                elif run > 0:
                    for name, value in measures.items():
                        figures.setdefault(name, []).append(round(value, 1) if value is not None else None)
                context.close()
            browser.close()
    finally:
        if args.nginx:
            origin.terminate()
        else:
            origin.stdin.close()
        origin.wait(timeout=10)
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)
    summary = lambda values: {"median": statistics.median(values), "min": min(values), "max": max(values),
                              "n": len(values), "all": values}
    print(json.dumps({"kind": "browser_first_playing", "runs": args.runs, "origin": "nginx" if args.nginx else "range_server.py",
                      "load_to_playing_ms": summary(figures["playing"]),
                      "load_to_admitted_ms": summary(figures["admitted"]),
                      "load_to_keys_ms": summary(figures["keys"]),
                      **({"controls_from_start_ms": summary(figures["controls"])} if args.compare_controls else {})}))


if __name__ == "__main__":
    main()
