"""The "Packaging a bitrate ladder" section of docs/benchmarks.md (issue 18), rendered from the
JSON lines of one bench run. report.py includes it in a whole run; `BENCH_PART=ladder make bench`
runs only this part and splices the section into the existing docs/benchmarks.md:

    ladder_section.py RESULTS.jsonl docs/benchmarks.md
"""
import statistics
import sys
import time

from doc_sections import spliced

BEGIN, END = "<!-- ladder:begin -->", "<!-- ladder:end -->"


def render(records, partial=False):
    """(lines, target) where target is (name, measured, verdict) for the targets table."""
    every = lambda kind: [r for r in records if r["kind"] == kind]
    commands = {r["name"]: r["command"] for r in every("command")}
    code = lambda name: f"```\n{commands[name]}\n```" if name in commands else ""
    runs = lambda tool: [r for r in every("run") if r["group"] == "ladder" and r["tool"] == tool]
    ours, shaka = runs("ours"), runs("shaka")
    if not ours or not shaka:
        return [], None
    med = lambda rows, field: statistics.median(r[field] for r in rows)
    rungs = every("ladder_rungs")[0]
    check = every("ladder_check")[0]
    sizes = next(r for r in every("sizes") if "ladder_ours_bytes" in r)
    auto = every("ladder_auto")[0]
    ratio = med(ours, "wall_s") / med(shaka, "wall_s")
    out = [BEGIN, "## 1b. Packaging a bitrate ladder", ""]
    if partial:
        load = every("load")
        out += [f"Measured by `BENCH_PART=ladder make bench` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} "
                f"(this section only; load average {load[0]['loadavg'] if load else '?'} at its start, a shared machine).", ""]
    out += [f"Four pre-made renditions of the 1080p clip ({', '.join(f'`{f}`' for f in rungs['files'])}; "
            f"{rungs['bytes']:,} bytes; libx264 with 2 s closed GOPs, made once by ffmpeg and cached) and the clip's "
            "audio, 6 s segments: ours writes tdf-hls (every segment a Standard TDF with its own key, wrapped to the "
            "KAS), Shaka Packager 3.8.0 clear HLS (a segment file each, as ours). "
            f"{len(ours)} alternating runs each after one unrecorded run of each.", "",
            code("ladder-ours"), "", code("ladder-shaka"), "",
            "| Tool | Median wall | Min–max | CPU user+sys median | Peak RSS median | Output bytes |",
            "|---|---:|---:|---:|---:|---:|"]
    for name, rows, size in (("packager (ours, tdf-hls)", ours, sizes["ladder_ours_bytes"]),
                             ("Shaka Packager 3.8.0 (clear HLS)", shaka, sizes["ladder_shaka_bytes"])):
        walls = [r["wall_s"] for r in rows]
        out.append(f"| {name} | {statistics.median(walls):.3f} s | {min(walls):.3f}–{max(walls):.3f} | "
                   f"{med(rows, 'cpu_s'):.2f} s | {med(rows, 'rss_kb') / 1024:.0f} MiB | {size:,} |")
    out += ["", f"Wall-time ratio ours / Shaka (medians): **{ratio:.2f}**. Both ladders have "
            f"{check['variants']} variants with the same heights and the same {check['segments']} video segment "
            f"boundaries (`Tools/bench/ladder_check.py`, PyPI m3u8: {'same' if check['same'] else 'DIFFERENT'}); "
            f"RESOLUTION ours {', '.join(check['ours_resolution'])}, Shaka's {', '.join(check['shaka_resolution'])} "
            "(Shaka applies the 1280:1281 sample aspect ratio ffmpeg's scale filter writes at 480p; we write the coded "
            "size, as ffprobe reports it); "
            f"BANDWIDTH ours {', '.join(f'{b:,}' for b in check['ours_bandwidth'])} "
            f"(the `.tdf` bytes, audio included), Shaka's {', '.join(f'{b:,}' for b in check['shaka_bandwidth'])}.", "",
            "`--ladder` makes the rungs itself (libx264, an IDR forced every 2 s), timed apart from packaging "
            "(one run):", "", code("ladder-auto"), "",
            f"ffmpeg: **{auto['ffmpeg_s']:.1f} s** for {auto['variants']} rungs; packaging them: "
            f"**{auto['packaging_s']:.2f} s**.", "", END]
    target = ("Ladder packaging wall time ≤ Shaka Packager's (ratio ≤ 1.0)",
              f"ratio {ratio:.2f} ({med(ours, 'wall_s'):.3f} s vs {med(shaka, 'wall_s'):.3f} s)",
              "met" if ratio <= 1.0 else f"**missed** by {100 * (ratio - 1):.0f} %")
    return out, target


def splice(results, doc):
    text, _ = spliced(results, doc, render, BEGIN, END, "## 2. Playback", "ladder_section: the results hold no ladder runs")
    open(doc, "w").write(text)


if __name__ == "__main__":
    splice(sys.argv[1], sys.argv[2])
