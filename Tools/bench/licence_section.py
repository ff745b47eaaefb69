"""The "ClearKey licences under load" section of docs/benchmarks.md (issue 29), rendered from the
JSON lines of one bench run (Tools/bench/licence.sh). report.py includes it in a whole run;
`BENCH_PART=licence make bench` runs only this part and splices the section, and its row of the
targets table, into the existing docs/benchmarks.md:

    licence_section.py RESULTS.jsonl docs/benchmarks.md
"""
import sys
import time

from doc_sections import splice_with_target

BEGIN, END = "<!-- licence:begin -->", "<!-- licence:end -->"
# The key-request target (section 3) applied to the licence route: it runs the same decision.
TARGET = "ClearKey licence P95 < 5 ms at 1,000 req/s, 0 errors"


def render(records, partial=False):
    """(lines, target) where target is (name, measured, verdict) for the targets table."""
    phases = {r["name"]: r for r in records if r["kind"] == "licence_phase"}
    fixed = phases.get("licence-1000")
    if not fixed:
        return [], None
    commands = {r["name"]: r["command"] for r in records if r["kind"] == "command"}
    pool = next((r["summary"] for r in records if r["kind"] == "licence_pool"), {})
    code = lambda name: f"```\n{commands[name]}\n```" if name in commands else ""
    out = [BEGIN, "### ClearKey licences under load", ""]
    if partial:
        load = next((r["loadavg"] for r in records if r["kind"] == "load" and r.get("when") == "start-licence"), "?")
        out += [f"Measured by `BENCH_PART=licence make bench` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} "
                f"(this part only; load average {load} at its start, a shared machine).", ""]
    out += ["The W3C ClearKey licence route (`POST /media/v1/playback/{id}/clearkey?expires=&sig=`, docs/delivery.md) "
            "as standard players' CDMs call it: the 1080p clip packaged with `--profile cmaf` and catalogued, "
            f"{pool.get('playbacks', '?')} playbacks started by pages' backends ({pool.get('viewers', '?')} viewers, "
            "`drmSystem` `clearkey`), then their licence URLs posted in turn "
            "`{\"kids\":[video key id],\"type\":\"temporary\"}` without a bearer, over and over (a playback "
            "component's licences are served one at a time, so one playback alone would measure that queue). Each licence runs "
            "every check of a key request (the URL's signature and expiry, the viewer's key-request budget, the key "
            "ids, the playback's media session, entitlement, the stream limit) and answers a JWK set; the first "
            "answer of each playback was checked against the key unwrapped from the package by `unwrap_keys.py` (Python "
            "`cryptography`). `KAS_KEY_REQUESTS_PER_MINUTE=1000000`, as for key requests.", "",
            code("licence-fixed"), "", code("licence-saturation"), "",
            "| Offered | Sent / due | Achieved (200 OK/s) | P50 | P95 | P99 | Max | Errors | KAS CPU | KAS CPU per licence | Load avg after |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for name in ("licence-1000", "licence-saturation"):
        p = phases.get(name)
        if not p:
            continue
        r = p["result"]
        offered = f"{r['rate']:,.0f} req/s" if r["rate"] else f"saturation ({r['connections']} conn.)"
        per = p["kas_cpu_s"] / r["ok"] * 1e6 if r["ok"] else 0
        out.append(f"| {offered} | {r['sent']:,} / {r['due']:,} | {r['throughput_rps']:,.0f} | {r['p50_ms']} ms | "
                   f"{r['p95_ms']} ms | {r['p99_ms']} ms | {r['max_ms']} ms | {r['errors']} | "
                   f"{p['kas_cpu_s'] / p['wall_s'] * 100:.0f} % | {per:,.0f} µs | {p['loadavg']} |")
    out += ["", END]
    r = fixed["result"]
    met = r["p95_ms"] < 5 and r["errors"] == 0
    target = (TARGET, f"P95 {r['p95_ms']} ms, {r['errors']} errors, {r['throughput_rps']:,.0f} req/s achieved",
              "met" if met else "**missed**")
    return out, target


def splice(results, doc):
    splice_with_target(results, doc, render, BEGIN, END, "## 3b. Key requests with Redis",
                       "licence_section: the results hold no licence phases")

if __name__ == "__main__":
    splice(sys.argv[1], sys.argv[2])
