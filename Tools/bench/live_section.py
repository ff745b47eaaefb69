"""The "Live latency" section of docs/benchmarks.md (issue 34), rendered from the JSON lines of one
`BENCH_PART=live make bench` run (Tools/bench/live.sh), spliced with its row of the targets table
into the existing docs/benchmarks.md (a whole run carries the block over, doc_sections.py):

    live_section.py RESULTS.jsonl docs/benchmarks.md
"""
import statistics
import sys
import time

from doc_sections import splice_with_target

BEGIN, END = "<!-- live:begin -->", "<!-- live:end -->"
TARGET = "Live latency ≤ 3 segment durations + 1 s (2 s segments: 7 s), median and P95"


def percentile(values, percent):
    """The nearest-rank percentile: the smallest value with at least `percent` % of them at or
    below it (integer arithmetic, so 95 % of 20 is rank 19 exactly)."""
    ordered = sorted(values)
    rank = max(1, -(-percent * len(ordered) // 100))
    return ordered[rank - 1]


def render(records, partial=False):
    """(lines, target) where target is (name, measured, verdict) for the targets table."""
    events = [r for r in records if r["kind"] == "live_event"]
    packager = next((r for r in records if r["kind"] == "live_packager"), None)
    segments = [e for e in events if e["event"] == "live-segment" and isinstance(e.get("latencyMs"), int)]
    ended = next((e for e in events if e["event"] == "live-ended"), None)
    started = next((e for e in events if e["event"] == "live-started"), None)
    if not segments or not ended or not packager:
        return [], None
    commands = {r["name"]: r["command"] for r in records if r["kind"] == "command"}
    loads = {r.get("when"): r["loadavg"] for r in records if r["kind"] == "load"}
    latencies = [e["latencyMs"] for e in segments]
    median, p95 = statistics.median(latencies), percentile(latencies, 95)
    goal = 3 * packager["segment_s"] * 1000 + 1000
    cpu = packager["user_s"] + packager["sys_s"]
    code = lambda name: f"```\n{commands[name]}\n```" if name in commands else ""
    out = [BEGIN, "## 4. Live latency (`BENCH_PART=live`)", ""]
    if partial:
        out += [f"Measured by `BENCH_PART=live make bench` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} "
                f"(this part only; load average {loads.get('start-live-stream', '?')} when the stream started and "
                f"{loads.get('end-live-stream', '?')} when it ended, a shared machine).", ""]
    out += [f"An encoder in real time (`ffmpeg -re`, the 1080p clip copied as fragmented MP4, {packager['input_s']:.0f} s) "
            f"feeds `packager live` with {packager['segment_s']:.0f} s segments into a directory served by a loopback "
            "origin (`Tools/python/range_server.py`); once four segments are listed, `player play` of its master "
            "playlist follows the stream through the built `kas serve` (one media rewrap per segment) from three "
            "target durations behind the edge (RFC 8216 §6.3.3) to `EXT-X-ENDLIST`. Latency is the player's own "
            "(`live-segment` `latencyMs`): the wall clock when a segment's clear video goes to the output, less its "
            "`EXT-X-PROGRAM-DATE-TIME`; a segment is published once complete, so it is at least one segment "
            "duration. The packager's CPU time is `/usr/bin/time`'s user + system for the whole run.", "",
            code("live-encoder"), "", code("live-packager"), "", code("live-player"), "",
            "| | Measured |", "|---|---:|",
            f"| Segments played (from sequence {started['sequence'] if started else '?'}) | {len(latencies)} "
            f"({ended['mediaMs'] / 1000:.1f} s of media) |",
            f"| Latency median (player's `live-ended`: {ended.get('medianLatencyMs', '?')} ms) | {median:.0f} ms |",
            f"| Latency P95 (nearest rank of {len(latencies)}) | {p95} ms |",
            f"| Latency min – max | {min(latencies)} – {max(latencies)} ms |",
            f"| Goal (3 × {packager['segment_s']:.0f} s + 1 s) | {goal:.0f} ms |",
            f"| packager live CPU (user + system) | {cpu:.2f} s in {packager['wall_s']:.1f} s of wall time |",
            f"| packager live CPU per second of input | {cpu / packager['input_s']:.4f} s |",
            "", END]
    met = median <= goal and p95 <= goal
    target = (TARGET, f"median {median:.0f} ms, P95 {p95} ms ({len(latencies)} segments)", "met" if met else "**missed**")
    return out, target


if __name__ == "__main__":
    splice_with_target(sys.argv[1], sys.argv[2], render, BEGIN, END, "## Where the time goes (profiles)",
                       "live_section: the results hold no live playback")
