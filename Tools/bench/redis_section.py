"""The "Key requests with Redis" section of docs/benchmarks.md (issue 19), rendered from the JSON
lines of a `BENCH_PART=redis make bench` run (Tools/bench/redis.sh) and spliced into the existing
file between its markers (a whole `make bench` keeps it: Tools/bench/doc_sections.py):

    redis_section.py RESULTS.jsonl docs/benchmarks.md
"""
import json
import os
import sys
import time

import doc_sections

BEGIN, END = "<!-- redis:begin -->", "<!-- redis:end -->"
CONFIGS = [
    ("sqlite", "one node, SQLite (the default store)"),
    ("redis-always", "one node, Redis, `appendfsync always`"),
    ("redis-everysec", "one node, Redis, `appendfsync everysec`"),
    ("two-nodes-nginx", "two nodes, one Redis (`always`), nginx round robin in front"),
]


def render(records, measured):
    every = lambda kind: [r for r in records if r["kind"] == kind]
    commands = {r["name"]: r["command"] for r in every("command")}
    code = lambda name: f"```\n{commands[name]}\n```" if name in commands else ""
    phases = {(r["config"], r["name"]): r for r in every("redis_phase")}
    machine = every("machine")[0] if every("machine") else {}
    load = [r for r in every("load") if r.get("when") == "start-redis"]
    out = [BEGIN, "## 3b. Key requests with Redis: one node, and two nodes behind nginx", "",
           f"Measured by `BENCH_PART=redis make bench` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(measured))} "
           f"(this section only; load average {load[0]['loadavg'] if load else '?'} at its start, "
           f"{machine.get('nproc', '?')} cores shared with other work). The warm key-request load of section 3 "
           "(4 viewers, 64 live `tdf` sessions started in the store under test, the real manifest, a fresh "
           "client key per request, `KAS_KEY_REQUESTS_PER_MINUTE=1000000` so every request still spends a rate "
           "token) against each configuration in turn, each with a fresh store. Every key request reads its "
           "session and writes its rate token in the store (and the viewer's first play, the first time), so "
           "the store is on every request's path. CPU is the sum over every server process of the configuration (KAS nodes, "
           "redis-server, nginx) as a share of one core.", "",
           "**On one 2-core machine this measures contention, not scale-out:** the two nodes, Redis, nginx and "
           "the load generator share the same two cores, so the two-node row shows what the extra hop and the "
           "shared store cost, never what a second machine would add.", "",
           code("redis-server"), "", code("redis-node"), "", code("redis-fixed"), "", code("redis-saturation"), "",
           "| Configuration | Offered | Achieved (200 OK/s) | P50 | P95 | P99 | Max | Errors | Server CPU | Load avg after |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for config, label in CONFIGS:
        for name in ("warm-1000", "warm-saturation"):
            p = phases.get((config, name))
            if not p:
                continue
            r = p["result"]
            offered = f"{r['rate']:,.0f} req/s" if r["rate"] else f"saturation ({r['connections']} conn.)"
            out.append(f"| {label} | {offered} | {r['throughput_rps']:,.0f} | {r['p50_ms']} ms | {r['p95_ms']} ms | "
                       f"{r['p99_ms']} ms | {r['max_ms']} ms | {r['errors']} | {p['cpu_s'] / p['wall_s'] * 100:.0f} % | {p['loadavg']} |")
    out += ["", END]
    return out


def splice(results, doc):
    records = [json.loads(line) for line in open(results) if line.strip()]
    if not any(r["kind"] == "redis_phase" for r in records):
        sys.exit("redis_section: the results hold no Redis phases")
    # The run's time: recorded with its start, else the results file's own.
    start = next((r for r in records if r["kind"] == "load" and r.get("when") == "start-redis"), {})
    section = "\n".join(render(records, start.get("time", os.path.getmtime(results))))
    text = doc_sections.replace_section(open(doc).read(), BEGIN, END, section, "## Where the time goes")
    open(doc, "w").write(text)


if __name__ == "__main__":
    splice(sys.argv[1], sys.argv[2])
