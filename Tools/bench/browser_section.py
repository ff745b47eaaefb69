"""The "Browser: load() to the first playing event" part of docs/benchmarks.md (issue 15),
rendered from the JSON lines of one bench run. report.py includes it in a whole run;
`BENCH_PART=browser make bench` runs only this step and splices the section, and its row of the
targets table, into the existing docs/benchmarks.md:

    browser_section.py RESULTS.jsonl docs/benchmarks.md
"""
import sys
import time

from doc_sections import splice_with_target

BEGIN, END = "<!-- browser:begin -->", "<!-- browser:end -->"
TARGET = "Browser load() → first playing < 300 ms (median of 5 cold pages, loopback)"
TARGET_MS = 300


def render(records, partial=False):
    """(lines, target) where target is (name, measured, verdict) for the targets table."""
    browser = next((r for r in records if r["kind"] == "browser_first_playing"), None)
    if not browser:
        return [], None
    commands = {r["name"]: r["command"] for r in records if r["kind"] == "command"}
    b = browser["load_to_playing_ms"]
    out = [BEGIN, "### Browser: load() to the first playing event", ""]
    load = {r["when"]: r["loadavg"] for r in records if r["kind"] == "load"}
    # When the five runs began (recorded by bench.sh; else now, when the section is written).
    when = next((r["utc"] for r in records if r["kind"] == "load" and r.get("utc")), None) \
        or time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())
    if partial:
        out += [f"Measured by `BENCH_PART=browser make bench` on {when} "
                f"(this step only; load average {load.get('start-browser', '?')} before the five runs and "
                f"{load.get('end-browser', '?')} after them (1, 5, 15 min), on a machine shared with other builds "
                "and tests, which inflates these figures).", ""]
    out += ["Debian's chromium (headless, Playwright) opens `kas serve`'s own test form, `/player/test-form.html?src=...`, in a new "
            f"browser context per run ({browser['runs']} cold pages after one unrecorded run); the token is typed into "
            "the page, which reads the fps-v2 package of the 1080p clip with Range requests from "
            f"{ORIGINS.get(browser.get('origin'), '`range_server.py --cors`')}, admits it, opens a media session per component and gets every key through WebCrypto into EME "
            "ClearKey while the MediaSource takes the inits and the first segments as they download, a large one in two parts (docs/web.md, \"Start-up\"). "
            "The figure is the page's User Timing measure from `load()` to the first `playing` event; the harness waits "
            "for it with a PerformanceObserver, without polling the page.", ""]
    if "browser-first-playing" in commands:
        out += [f"```\n{commands['browser-first-playing']}\n```", ""]
    out += [f"Median {b['median']} ms (min {b['min']}, max {b['max']}; runs: {', '.join(str(x) for x in b['all'])}); "
            f"of which admission (Range reads and reader checks) {browser['load_to_admitted_ms']['median']} ms and "
            f"every key in the CDM {browser['load_to_keys_ms']['median']} ms after load() (medians).", ""]
    shown = browser.get("controls_from_start_ms")
    if shown:
        out += [f"The page shows the element's own controls once it plays. On {shown['n']} more cold pages, alternating "
                "with those above, an init script made the controls show from the start, as a page that sets "
                f"`controls` in its HTML has them: median {shown['median']} ms (min {shown['min']}, max {shown['max']}; "
                f"runs: {', '.join(str(x) for x in shown['all'])}).", ""]
    out += [END]
    measured = f"{b['median']} ms ({b['min']}–{b['max']})"
    if partial:
        measured += f" (`BENCH_PART=browser`, {when}, load {load.get('start-browser', '?').split()[0]})"
    target = (TARGET, measured,
              "met" if b["median"] < TARGET_MS else f"**missed** by {b['median'] - TARGET_MS:.1f} ms")
    return out, target


# The origin the runs read the package from (browser_first_playing.py's `origin`).
ORIGINS = {"nginx": "Debian's nginx on loopback (static files, CORS: the origin a deployment runs)",
           "range_server.py": "`range_server.py --cors` on loopback (Python's standard library)"}


def splice(results, doc):
    splice_with_target(results, doc, render, BEGIN, END, "## 3. Key delivery",
                       "browser_section: the results hold no browser_first_playing figures")

if __name__ == "__main__":
    splice(sys.argv[1], sys.argv[2])
